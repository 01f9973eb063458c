// What npm start gives the service before the shell's settings: generous limits per client IP and per
// e-mail address (every local client has the same address), and a 429 that names the setting to
// change; a deployment, with none of this set, keeps production's limits and says only "try again later".
import { describe, expect, it } from 'vitest';
import { accountOpeningLimit, rateLimitSettings } from '../../lib/config.ts';
import { RateLimited } from '../../lib/errors.ts';
import { enforceRateLimits } from '../../lib/rate-limit/rate-limiter.ts';
import { shellSettings, START_SETTINGS } from '../../local/serverless-config.ts';
import { MemoryRateLimiter } from '../support/auth-fakes.ts';

/** The refusal the second of two hits gets, past a limit of one. */
async function refusal(limit: ReturnType<typeof rateLimitSettings>['signup']): Promise<RateLimited> {
  const limiter = new MemoryRateLimiter();
  const hit = () => enforceRateLimits(limiter, [{ rule: { name: 'signup-ip', ...limit }, subject: '127.0.0.1' }]);
  await hit();
  return hit().then(
    () => expect.unreachable('the second hit was let through'),
    (error: unknown) => error as RateLimited,
  );
}

describe('npm start: rate limits', () => {
  it('are generous for signup, login and the other limits counted per client IP or address, unless the shell sets them', () => {
    const local = rateLimitSettings({ ...START_SETTINGS });
    for (const limit of Object.values(local)) expect(limit.limit / limit.windowSeconds).toBeGreaterThanOrEqual(10);
    const production = rateLimitSettings({});
    expect(production.signup).toEqual({ limit: 5, windowSeconds: 600 });
    expect(production.login).toEqual({ limit: 10, windowSeconds: 300 });
    // The shell's settings come after and win.
    expect(rateLimitSettings({ ...START_SETTINGS, ...shellSettings({ RATE_LIMIT_SIGNUP: '5/600' }) }).signup).toMatchObject({ limit: 5, windowSeconds: 600 });
  });

  it("answer a refusal with the setting to change and how, on the local stack; with only 'try again later' where RATE_LIMIT_ADVICE is not set", async () => {
    const local = await refusal(rateLimitSettings({ ...START_SETTINGS, RATE_LIMIT_SIGNUP: '1/600' }).signup);
    expect(local).toBeInstanceOf(RateLimited);
    expect(local.message).toBe(
      'Too many requests; try again later. This local stack allows 1/600 (RATE_LIMIT_SIGNUP); to change it, start the stack with RATE_LIMIT_SIGNUP=<count>/<seconds> npm start',
    );
    expect(local.retryAfterSeconds).toBe(600);
    expect((await refusal(rateLimitSettings({ RATE_LIMIT_SIGNUP: '1/600' }).signup)).message).toBe('Too many requests; try again later');
    expect(accountOpeningLimit({ RATE_LIMIT_ADVICE: 'Ask {setting} ({value})' })).toEqual({ limit: 10, windowSeconds: 86400, advice: 'Ask RATE_LIMIT_ACCOUNTS (10/86400)' });
  });
});
