// What npm start takes from the shell: the rate limits, and nothing else.
import { describe, expect, it } from 'vitest';
import { shellRateLimits } from '../../local/serverless-config.ts';

describe('shellRateLimits', () => {
  it('takes RATE_LIMIT_* settings that have a value, and no other setting', () => {
    const shell = { RATE_LIMIT_SIGNUP: '100/60', RATE_LIMIT_LOGIN: ' ', STRIPE_SECRET_KEY: 'sk_live_x', SUPABASE_URL: 'https://real.supabase.co', PATH: '/bin', rate_limit_signup: '1/1' };
    expect(shellRateLimits(shell)).toEqual({ RATE_LIMIT_SIGNUP: '100/60' });
  });
});
