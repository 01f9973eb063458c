// What npm start takes from the shell: the rate limits, a front end's extra CORS origins and its own
// dashboard or portal address, and nothing else.
import { describe, expect, it } from 'vitest';
import { shellSettings } from '../../local/serverless-config.ts';

describe('shellSettings', () => {
  it('takes RATE_LIMIT_*, CORS_EXTRA_ORIGINS, DASHBOARD_URL and PORTAL_URL when they have a value, and no other setting', () => {
    const shell = {
      RATE_LIMIT_SIGNUP: '100/60',
      RATE_LIMIT_LOGIN: ' ',
      CORS_EXTRA_ORIGINS: 'http://localhost:5173',
      STRIPE_SECRET_KEY: 'sk_live_x',
      SUPABASE_URL: 'https://real.supabase.co',
      PORTAL_URL: 'http://localhost:5173',
      DASHBOARD_URL: '',
      PASSWORD_RESET_REDIRECT_URL: 'https://elsewhere.example/reset',
      PATH: '/bin',
      rate_limit_signup: '1/1',
    };
    expect(shellSettings(shell)).toEqual({ RATE_LIMIT_SIGNUP: '100/60', CORS_EXTRA_ORIGINS: 'http://localhost:5173', PORTAL_URL: 'http://localhost:5173' });
  });
});
