// How much onboarding one caller, and one account, may ask for. Each
// submission provisions across every integration (and an enhanced one also
// crawls the site and posts to chat), so onboarding-v2 and enhanced onboarding
// count together against the submitter's budget before any work is done, and
// against the account's once the account is known; enhanced runs also count
// against the account's longer budget. Keyed by the request's access grant:
// the signed-in user's id, or the internal service key (the portal's backend
// submits for every client, so its budget is a generous one).
import type { OnboardingLimits } from '../config.ts';
import type { Caller } from '../access/caller.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';

export interface SubmissionLimitDeps {
  limiter: RateLimiter;
  limits: OnboardingLimits;
}

export type SubmissionKind = 'onboarding' | 'enhanced';

/** Before any work: the caller's budget (429 with Retry-After when spent). */
export async function limitSubmitter(deps: SubmissionLimitDeps, caller: Caller): Promise<void> {
  const { limits } = deps;
  const hit =
    caller.kind === 'user'
      ? { rule: { name: 'onboarding-user', ...limits.perUser }, subject: caller.user.id }
      : { rule: { name: `onboarding-${caller.kind}`, ...limits.perServiceKey }, subject: caller.kind };
  await enforceRateLimits(deps.limiter, [hit]);
}

/** Once the account the submission is for is known: its budget, and for an enhanced run its longer one. */
export async function limitAccount(deps: SubmissionLimitDeps, accountId: string, kind: SubmissionKind): Promise<void> {
  const { limits } = deps;
  await enforceRateLimits(deps.limiter, [
    { rule: { name: 'onboarding-account', ...limits.perAccount }, subject: accountId },
    ...(kind === 'enhanced' ? [{ rule: { name: 'enhanced-account', ...limits.enhancedPerAccount }, subject: accountId }] : []),
  ]);
}
