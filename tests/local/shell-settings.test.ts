// What npm start takes from the shell: the rate limits and a front end's extra CORS origins, and nothing else.
import { describe, expect, it } from 'vitest';
import { shellSettings } from '../../local/serverless-config.ts';

describe('shellSettings', () => {
  it('takes RATE_LIMIT_* and CORS_EXTRA_ORIGINS when they have a value, and no other setting', () => {
    const shell = {
      RATE_LIMIT_SIGNUP: '100/60',
      RATE_LIMIT_LOGIN: ' ',
      CORS_EXTRA_ORIGINS: 'http://localhost:5173',
      STRIPE_SECRET_KEY: 'sk_live_x',
      SUPABASE_URL: 'https://real.supabase.co',
      PORTAL_URL: 'http://localhost:5173',
      PATH: '/bin',
      rate_limit_signup: '1/1',
    };
    expect(shellSettings(shell)).toEqual({ RATE_LIMIT_SIGNUP: '100/60', CORS_EXTRA_ORIGINS: 'http://localhost:5173' });
  });
});
