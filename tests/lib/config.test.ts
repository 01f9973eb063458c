import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';

const { corsOrigins: gatewayOrigins } = createRequire(import.meta.url)('../../infra/cors-origins.cjs') as { corsOrigins: (env: Record<string, string>) => string[] };

const minimal = {
  STAGE: 'dev',
  TABLE_PREFIX: 'svc-dev-',
  PORTAL_URL: 'https://portal.example.com',
  DASHBOARD_URL: 'https://app.example.com/',
  SUPABASE_URL: 'https://ref.supabase.co',
  SUPABASE_ANON_KEY: 'anon',
};

describe('configuration', () => {
  it('fails naming every missing required variable', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    try {
      loadConfig({});
    } catch (error) {
      expect((error as Error).message).toContain('STAGE is required');
      expect((error as Error).message).toContain('TABLE_PREFIX is required');
      expect((error as Error).message).toContain('SUPABASE_ANON_KEY is required');
      expect((error as Error).message).toContain('SUPABASE_URL is required');
      expect((error as Error).message).toContain('PORTAL_URL is required');
      expect((error as Error).message).toContain('DASHBOARD_URL is required');
    }
  });

  it('treats blank values as missing', () => {
    expect(() => loadConfig({ ...minimal, STAGE: '  ' })).toThrow(/STAGE is required/);
  });

  it('validates URLs and limits', () => {
    expect(() => loadConfig({ ...minimal, PORTAL_URL: 'javascript:alert(1)' })).toThrow(/PORTAL_URL must be an http\(s\) URL/);
    expect(() => loadConfig({ ...minimal, RATE_LIMIT_SIGNUP: 'lots' })).toThrow(/RATE_LIMIT_SIGNUP must look like/);
  });

  it('allows the origins of the portal, the dashboard and the extra list, as API Gateway does', () => {
    const env = { ...minimal, PORTAL_URL: 'https://portal.example.com/app/', CORS_EXTRA_ORIGINS: ' https://a.example , https://b.example:8443/x,https://a.example' };
    const origins = ['https://portal.example.com', 'https://app.example.com', 'https://a.example', 'https://b.example:8443'];
    expect(loadConfig(env).http.corsOrigins).toEqual(origins);
    expect(gatewayOrigins(env)).toEqual(origins);
    expect(loadConfig(env).urls.portal).toBe('https://portal.example.com/app');
    expect(() => loadConfig({ ...minimal, CORS_EXTRA_ORIGINS: 'https://ok.example,not a url' })).toThrow(/CORS_EXTRA_ORIGINS must be a comma-separated list/);
  });

  it('defaults the reset redirect to the portal, honouring both variable names', () => {
    expect(loadConfig(minimal).urls.passwordResetRedirect).toBe('https://portal.example.com/reset-password');
    expect(loadConfig({ ...minimal, AUTH_RESET_REDIRECT_URL: 'https://x.example/r' }).urls.passwordResetRedirect).toBe('https://x.example/r');
    expect(
      loadConfig({ ...minimal, AUTH_RESET_REDIRECT_URL: 'https://x.example/r', PASSWORD_RESET_REDIRECT_URL: 'https://y.example/r' }).urls
        .passwordResetRedirect,
    ).toBe('https://y.example/r');
  });

  it('leaves an integration unconfigured (null) when its credential is absent', () => {
    const c = loadConfig(minimal);
    expect(c.payments).toBeNull();
    expect(c.taskTool).toBeNull();
    expect(c.http.corsOrigins).toEqual(['https://portal.example.com', 'https://app.example.com']);
  });

  it('requires the companions of a configured integration', () => {
    expect(() => loadConfig({ ...minimal, CLICKUP_API_TOKEN: 'pk_x' })).toThrow(/CLICKUP_SPACE_ID is required/);
    expect(() => loadConfig({ ...minimal, RESEND_API_KEY: 're_x' })).toThrow(/EMAIL_FROM is required/);
  });

  it('refuses a log level it does not know', () => {
    expect(() => loadConfig({ ...minimal, LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL must be one of debug, info, warn, error, silent/);
    expect(loadConfig({ ...minimal, LOG_LEVEL: 'WARN' }).log.level).toBe('warn');
  });

  it('reads payments: the API as an origin (stripe-node takes host and port), the prices of the plans sold', () => {
    const stripe = { ...minimal, STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PRICE_PRO: 'price_pro' };
    const prices = { starter: undefined, pro: 'price_pro', enterprise: undefined };
    expect(loadConfig(stripe).payments).toEqual({ secretKey: 'sk_test_x', apiBase: 'https://api.stripe.com', prices });
    // The webhook reads its signing secret and the prices, never the API key.
    expect(loadConfig(stripe).stripeWebhook).toEqual({ webhookSecret: 'whsec_x', prices });
    expect(loadConfig({ ...minimal, STRIPE_WEBHOOK_SECRET: 'whsec_x' }).payments).toBeNull();
    expect(loadConfig({ ...stripe, STRIPE_API_BASE: 'http://localhost:10001/' }).payments?.apiBase).toBe('http://localhost:10001');
    expect(() => loadConfig({ ...stripe, STRIPE_API_BASE: 'http://localhost:10001/v1' })).toThrow(/STRIPE_API_BASE must be an origin/);
    expect(loadConfig(minimal).rateLimits.checkoutSession).toEqual({ limit: 20, windowSeconds: 600 });
  });

  it('is frozen', () => {
    const c = loadConfig(minimal);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.urls)).toBe(true);
  });
});
