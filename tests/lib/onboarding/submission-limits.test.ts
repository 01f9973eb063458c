import { describe, expect, it } from 'vitest';
import { onboardingLimitSettings } from '../../../lib/config.ts';
import { RateLimited } from '../../../lib/errors.ts';
import type { Caller } from '../../../lib/access/caller.ts';
import { limitAccount, limitSubmitter } from '../../../lib/onboarding/submission-limits.ts';
import { MemoryRateLimiter } from '../../support/auth-fakes.ts';

const user = (id: string): Caller => ({ kind: 'user', user: { id, email: `${id}@example.com`, emailConfirmed: true, appMetadata: {}, userMetadata: {} } });
const SERVICE: Caller = { kind: 'service' };

const depsWith = (env: Record<string, string> = {}) => ({ limiter: new MemoryRateLimiter(), limits: onboardingLimitSettings(env) });

/** How many calls get through before the first 429, and that 429's Retry-After. */
async function admitted(call: () => Promise<void>, tries: number) {
  for (let i = 0; i < tries; i++) {
    try {
      await call();
    } catch (error) {
      expect(error).toBeInstanceOf(RateLimited);
      return { through: i, retryAfter: (error as RateLimited).retryAfterSeconds };
    }
  }
  return { through: tries, retryAfter: undefined };
}

describe('the limits of onboarding submissions', () => {
  it('lets a user submit 10 times in 10 minutes by default, then answers 429 with the wait', async () => {
    const deps = depsWith();
    expect(await admitted(() => limitSubmitter(deps, user('ann')), 15)).toEqual({ through: 10, retryAfter: 600 });
    // Another user has a budget of their own.
    await expect(limitSubmitter(deps, user('bob'))).resolves.toBeUndefined();
  });

  it('gives the internal service key a far larger budget of its own', async () => {
    const deps = depsWith({ RATE_LIMIT_ONBOARDING_PER_SERVICE_KEY: '50/60', RATE_LIMIT_ONBOARDING_PER_USER: '1/600' });
    expect(await admitted(() => limitSubmitter(deps, SERVICE), 60)).toEqual({ through: 50, retryAfter: 60 });
    await expect(limitSubmitter(deps, user('ann'))).resolves.toBeUndefined();
    expect(onboardingLimitSettings({}).perServiceKey.limit).toBeGreaterThan(onboardingLimitSettings({}).perUser.limit * 10);
  });

  it('bounds an account whoever submits for it, onboarding-v2 and enhanced together', async () => {
    const deps = depsWith({ RATE_LIMIT_ONBOARDING_PER_ACCOUNT: '4/600' });
    await limitAccount(deps, 'acct-1', 'onboarding');
    await limitAccount(deps, 'acct-1', 'enhanced');
    await limitAccount(deps, 'acct-1', 'onboarding');
    await limitAccount(deps, 'acct-1', 'enhanced');
    await expect(limitAccount(deps, 'acct-1', 'onboarding')).rejects.toBeInstanceOf(RateLimited);
    await expect(limitAccount(deps, 'acct-2', 'onboarding')).resolves.toBeUndefined();
  });

  it('bounds enhanced runs per account per day, apart from onboarding-v2', async () => {
    const deps = depsWith({ RATE_LIMIT_ONBOARDING_PER_ACCOUNT: '1000/600', RATE_LIMIT_ENHANCED_PER_ACCOUNT: '3/86400' });
    expect(await admitted(() => limitAccount(deps, 'acct-1', 'enhanced'), 10)).toEqual({ through: 3, retryAfter: 86400 });
    await expect(limitAccount(deps, 'acct-1', 'onboarding')).resolves.toBeUndefined();
    expect(onboardingLimitSettings({}).enhancedPerAccount).toEqual({ limit: 10, windowSeconds: 86400 });
  });

  it('is configured like the other limits, and refuses a malformed one naming it', () => {
    expect(onboardingLimitSettings({ RATE_LIMIT_ONBOARDING_PER_USER: '3/60' }).perUser).toEqual({ limit: 3, windowSeconds: 60 });
    expect(() => onboardingLimitSettings({ RATE_LIMIT_ENHANCED_PER_ACCOUNT: 'ten a day' })).toThrow(/RATE_LIMIT_ENHANCED_PER_ACCOUNT must look like/);
  });
});
