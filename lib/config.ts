// The one place that reads the environment. It is read once, at cold start,
// validated, and frozen; a missing required value fails the cold start with the
// variable's name, so a misconfigured deployment fails loudly on its first call.
// Every key is listed, with a one-line comment, in .env.example.

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function reader(env: Env) {
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  return {
    problems,
    required(name: string): string {
      const v = value(name);
      if (v === undefined) problems.push(`${name} is required`);
      return v ?? '';
    },
    optional(name: string, fallback?: string): string | undefined {
      return value(name) ?? fallback;
    },
    url(name: string, fallback?: string): string | undefined {
      const v = value(name) ?? fallback;
      if (v === undefined) return undefined;
      try {
        const u = new URL(v);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
        return v.replace(/\/+$/, '');
      } catch {
        problems.push(`${name} must be an http(s) URL`);
        return undefined;
      }
    },
    /** A comma-separated list of http(s) origins (a path or trailing slash is dropped). */
    origins(name: string): string[] {
      const list = (value(name) ?? '').split(',').map((o) => o.trim()).filter(Boolean);
      return list.flatMap((o) => {
        try {
          const u = new URL(o);
          if (u.protocol === 'http:' || u.protocol === 'https:') return [u.origin];
        } catch {
          // reported below
        }
        problems.push(`${name} must be a comma-separated list of http(s) origins`);
        return [];
      });
    },
    /** An http(s) origin: scheme, host and port, no path (SDKs that take host and port, not a base URL). */
    origin(name: string, fallback: string): string {
      const v = this.url(name, fallback);
      if (v === undefined) return fallback;
      const u = new URL(v);
      if (u.pathname !== '/' || u.search || u.hash) problems.push(`${name} must be an origin, without a path`);
      return u.origin;
    },
    int(name: string, fallback: number): number {
      const v = value(name);
      if (v === undefined) return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) problems.push(`${name} must be a non-negative integer`);
      return n;
    },
    bool(name: string, fallback: boolean): boolean {
      const v = value(name);
      if (v === undefined) return fallback;
      if (!/^(true|false|1|0)$/i.test(v)) problems.push(`${name} must be true or false`);
      return /^(true|1)$/i.test(v);
    },
    /** "count/seconds", e.g. "5/600" = five per ten minutes. */
    limit(name: string, fallback: string): RateLimit {
      const v = value(name) ?? fallback;
      const m = /^(\d+)\/(\d+)$/.exec(v);
      if (!m) {
        problems.push(`${name} must look like <count>/<seconds>, e.g. 5/600`);
        return { limit: 1, windowSeconds: 1 };
      }
      return { limit: Number(m[1]), windowSeconds: Number(m[2]) };
    },
  };
}

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export function loadConfig(env: Env = process.env) {
  const r = reader(env);

  // Every link, e-mail and redirect the service builds starts from these two.
  const portalUrl = r.url('PORTAL_URL') ?? r.required('PORTAL_URL');
  const dashboardUrl = r.url('DASHBOARD_URL') ?? r.required('DASHBOARD_URL');

  const stripeKey = r.optional('STRIPE_SECRET_KEY');
  const resendKey = r.optional('RESEND_API_KEY');
  const clickupToken = r.optional('CLICKUP_API_TOKEN');
  const dropboxToken = r.optional('DROPBOX_ACCESS_TOKEN');
  const dropboxRefresh = r.optional('DROPBOX_REFRESH_TOKEN');
  const slackWebhook = r.url('SLACK_WEBHOOK_URL');
  const slackBot = r.optional('SLACK_BOT_TOKEN');
  const closeKey = r.optional('CLOSE_API_KEY');

  const config = {
    stage: r.required('STAGE'),
    region: r.optional('AWS_REGION', 'eu-west-1')!,
    tablePrefix: r.required('TABLE_PREFIX'),
    logLevel: r.optional('LOG_LEVEL', 'info')!,

    urls: {
      portal: portalUrl,
      dashboard: dashboardUrl,
      /** This API's public base URL; unset on AWS means API Gateway's own domain. */
      api: r.url('PUBLIC_API_URL'),
      passwordResetRedirect:
        r.url('PASSWORD_RESET_REDIRECT_URL') ?? r.url('AUTH_RESET_REDIRECT_URL') ?? `${portalUrl}/reset-password`,
    },
    /**
     * Origins allowed by CORS: the portal, the dashboard and any extra ones.
     * API Gateway answers preflights from the same list (infra/cors-origins.cjs).
     */
    corsOrigins: [...new Set([...r.origins('PORTAL_URL'), ...r.origins('DASHBOARD_URL'), ...r.origins('CORS_EXTRA_ORIGINS')])],

    access: {
      /** The internal service token expected in x-api-key. Unset: the key path is closed. */
      internalApiKey: r.optional('INTERNAL_API_KEY'),
      /** The admin key for crawler intelligence. Unset: only admin users get in. */
      adminApiKey: r.optional('ADMIN_API_KEY'),
    },

    identity: {
      url: r.url('SUPABASE_URL') ?? r.required('SUPABASE_URL'),
      anonKey: r.required('SUPABASE_ANON_KEY'),
      serviceRoleKey: r.optional('SUPABASE_SERVICE_ROLE_KEY'),
    },

    email: resendKey
      ? {
          apiKey: resendKey,
          baseUrl: r.url('RESEND_BASE_URL', 'https://api.resend.com')!,
          from: r.required('EMAIL_FROM'),
          teamAddress: r.optional('TEAM_NOTIFICATION_EMAIL'),
        }
      : null,

    payments: stripeKey
      ? {
          secretKey: stripeKey,
          webhookSecret: r.required('STRIPE_WEBHOOK_SECRET'),
          apiBase: r.origin('STRIPE_API_BASE', 'https://api.stripe.com'),
          prices: {
            starter: r.optional('STRIPE_PRICE_STARTER'),
            pro: r.optional('STRIPE_PRICE_PRO'),
            enterprise: r.optional('STRIPE_PRICE_ENTERPRISE'),
          },
        }
      : null,

    taskTool: clickupToken
      ? {
          token: clickupToken,
          apiBase: r.url('CLICKUP_API_BASE', 'https://api.clickup.com/api/v2')!,
          spaceId: r.required('CLICKUP_SPACE_ID'),
        }
      : null,

    storage:
      dropboxToken || dropboxRefresh
        ? {
            accessToken: dropboxToken,
            refreshToken: dropboxRefresh,
            appKey: dropboxRefresh ? r.required('DROPBOX_APP_KEY') : undefined,
            appSecret: dropboxRefresh ? r.required('DROPBOX_APP_SECRET') : undefined,
            apiBase: r.url('DROPBOX_API_BASE', 'https://api.dropboxapi.com')!,
            contentBase: r.url('DROPBOX_CONTENT_BASE', 'https://content.dropboxapi.com')!,
            rootPath: normaliseRoot(r.optional('DROPBOX_ROOT_PATH', '/Clients')!),
          }
        : null,

    chat: slackWebhook
      ? { mode: 'incoming-webhook' as const, webhookUrl: slackWebhook }
      : slackBot
        ? {
            mode: 'web-api' as const,
            botToken: slackBot,
            channel: r.required('SLACK_CHANNEL'),
            apiBase: r.url('SLACK_API_BASE', 'https://slack.com/api')!,
          }
        : null,

    crm: closeKey ? { apiKey: closeKey, apiBase: r.url('CLOSE_API_BASE', 'https://api.close.com/api/v1')! } : null,

    crawler: {
      firecrawl: r.optional('FIRECRAWL_API_KEY')
        ? { apiKey: r.optional('FIRECRAWL_API_KEY')!, apiBase: r.url('FIRECRAWL_API_BASE', 'https://api.firecrawl.dev')! }
        : null,
      pagespeed: r.optional('PAGESPEED_API_KEY')
        ? { apiKey: r.optional('PAGESPEED_API_KEY')!, apiBase: r.url('PAGESPEED_API_BASE', 'https://www.googleapis.com')! }
        : null,
      /** Only a local stage may crawl loopback and private addresses (to reach a fixture site). */
      allowPrivateNetworks: r.bool('CRAWLER_ALLOW_PRIVATE_NETWORKS', false),
      maxPages: r.int('CRAWLER_MAX_PAGES', 20),
    },

    vendors: {
      /** Per-attempt timeout of an outbound vendor call. */
      timeoutMs: r.int('VENDOR_TIMEOUT_MS', 8000),
      /** Attempts inside one step before the state machine's own retry takes over. */
      maxAttempts: r.int('VENDOR_MAX_ATTEMPTS', 4),
      /** The longest vendor retry hint honoured inside a step; longer waits are left to the state machine. */
      maxRetryWaitMs: r.int('VENDOR_MAX_RETRY_WAIT_MS', 10000),
    },

    workflows: {
      /** Set by serverless.yml: the onboarding state machine (the local one on the local stage). */
      onboardingArn: r.optional('ONBOARDING_STATE_MACHINE_ARN'),
      /** How long onboarding endpoints wait for the run before answering 202. */
      waitMs: r.int('ONBOARDING_WAIT_MS', 20000),
      /** Set by serverless.yml: the booking state machine, which does the booking webhook's task-tool and chat work. */
      bookingArn: r.optional('BOOKING_STATE_MACHINE_ARN'),
      /** Set by serverless.yml: the enhanced onboarding state machine. */
      enhancedOnboardingArn: r.optional('ENHANCED_ONBOARDING_STATE_MACHINE_ARN'),
      /** Set by serverless.yml: the crawler refresh state machine. */
      crawlerRefreshArn: r.optional('CRAWLER_REFRESH_STATE_MACHINE_ARN'),
    },

    rateLimits: {
      signup: r.limit('RATE_LIMIT_SIGNUP', '5/600'),
      login: r.limit('RATE_LIMIT_LOGIN', '10/300'),
      forgotPassword: r.limit('RATE_LIMIT_FORGOT_PASSWORD', '5/900'),
      resetPassword: r.limit('RATE_LIMIT_RESET_PASSWORD', '5/900'),
      perEmail: r.limit('RATE_LIMIT_PER_EMAIL', '3/900'),
      checkoutSession: r.limit('RATE_LIMIT_CHECKOUT_SESSION', '20/600'),
    },

    tokens: {
      verificationTtlHours: r.int('VERIFICATION_TOKEN_TTL_HOURS', 24),
      recoveryTtlSeconds: 3600,
    },
  };

  if (r.problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${r.problems.join('; ')}`);
  }
  return deepFreeze(config);
}

function normaliseRoot(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export type Config = ReturnType<typeof loadConfig>;

/** The process's configuration, read at cold start. */
export const config: Config = loadConfig();
