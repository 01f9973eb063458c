// Fixed-window rate limits, shared by every Lambda instance (a Lambda's memory
// is not). A window opens with the first hit on a key and lasts windowSeconds;
// at most `limit` hits are let through in it.
import { RateLimited } from '../errors.ts';

export interface RateLimitRule {
  /** Names the limit in storage, e.g. "signup-ip"; rules with different names never share a count. */
  name: string;
  limit: number;
  windowSeconds: number;
  /** Said to a refused client after "try again later" (RateLimit.advice, lib/config.ts). */
  advice?: string;
}

export interface RateDecision {
  allowed: boolean;
  /** When refused: seconds until the window ends. */
  retryAfterSeconds: number;
  /** When allowed: how many more hits the window lets through after this one (0: this hit used its last). */
  remaining?: number;
}

export interface RateLimiter {
  /** Counts one hit by `subject` (an IP, an e-mail address) against the rule; refused hits are not counted. */
  hit(rule: RateLimitRule, subject: string): Promise<RateDecision>;
  /** Whether a hit would be let through now, counting nothing. */
  peek(rule: RateLimitRule, subject: string): Promise<RateDecision>;
}

/**
 * Counts the hits in order and refuses with 429 at the first limit reached.
 * A hit let through by an earlier rule stays counted, as the request did happen.
 */
export async function enforceRateLimits(limiter: RateLimiter, hits: { rule: RateLimitRule; subject: string }[]): Promise<void> {
  for (const { rule, subject } of hits) {
    const decision = await limiter.hit(rule, subject);
    if (!decision.allowed) throw new RateLimited(`Too many requests; try again later${rule.advice ? `. ${rule.advice}` : ''}`, decision.retryAfterSeconds);
  }
}
