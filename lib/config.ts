// The one place that reads the environment. Each section below is a function
// that reads its variables by their literal names, validates them and returns
// a frozen value; a missing required value throws a ConfigError naming the
// variable. The adapters (lib/wiring/) read a section when they are built, at
// cold start, so a misconfigured deployment fails loudly on its first call.
//
// Sections are plain functions so that esbuild leaves out of a Lambda's bundle
// every section its code never reads, names included: serverless.yml gives
// each function only the settings whose names its bundle holds
// (infra/settings-per-function.cjs). Read a setting anywhere else and it will
// not be there. Every key is listed, with a one-line comment, in .env.example.

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = 'ConfigError';
  /** Each thing wrong, e.g. "STAGE is required". */
  readonly problems: string[];
  constructor(message: string, problems: string[] = [message]) {
    super(message);
    this.problems = problems;
  }
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
    /** A vendor's limit for the plan in use, "count/seconds" (e.g. "100/60"), or "none": its calls are not paced. */
    pace(name: string, fallback: string): RateLimit | null {
      return (value(name) ?? fallback) === 'none' ? null : this.limit(name, fallback);
    },
    /**
     * "count/seconds", e.g. "5/600" = five per ten minutes; with `advice` (RATE_LIMIT_ADVICE), also what
     * a refused client is told, its {setting} and {value} standing for this limit's setting and value.
     */
    limit(name: string, fallback: string, advice?: string): RateLimit {
      const v = value(name) ?? fallback;
      const m = /^(\d+)\/(\d+)$/.exec(v);
      if (!m) {
        problems.push(`${name} must look like <count>/<seconds>, e.g. 5/600`);
        return { limit: 1, windowSeconds: 1 };
      }
      const limit = { limit: Number(m[1]), windowSeconds: Number(m[2]) };
      return advice ? { ...limit, advice: advice.replaceAll('{setting}', name).replaceAll('{value}', `${m[1]}/${m[2]}`) } : limit;
    },
  };
}

export interface RateLimit {
  limit: number;
  windowSeconds: number;
  /** What a refused client is told besides "try again later", when RATE_LIMIT_ADVICE is set. */
  advice?: string;
}

type Reader = ReturnType<typeof reader>;

/** Reads one section: its value frozen, or a ConfigError naming every variable that is wrong. */
function section<T>(env: Env, read: (r: Reader) => T): T {
  const r = reader(env);
  const value = read(r);
  if (r.problems.length > 0) throw new ConfigError(`Invalid configuration: ${r.problems.join('; ')}`, r.problems);
  return deepFreeze(value);
}

// --- The service ---

export function stageName(env: Env = process.env): string {
  return section(env, (r) => r.required('STAGE'));
}

export function tablePrefix(env: Env = process.env): string {
  return section(env, (r) => r.required('TABLE_PREFIX'));
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function logSettings(env: Env = process.env) {
  return section(env, (r) => {
    const level = (r.optional('LOG_LEVEL', 'info')!).toLowerCase();
    if (!(LOG_LEVELS as readonly string[]).includes(level)) r.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
    return { level: level as LogLevel, service: r.optional('SERVICE_NAME', 'agency-backend')! };
  });
}

/** Where the service's own CloudWatch metrics go (lib/metrics.ts): the namespace is the service, Stage a dimension. */
export function metricsSettings(env: Env = process.env) {
  return section(env, (r) => ({ namespace: r.optional('SERVICE_NAME', 'agency-backend')!, stage: r.required('STAGE') }));
}

/** What every HTTP function needs: who may call from a browser, and this API's public address. */
export function httpSettings(env: Env = process.env) {
  return section(env, (r) => ({
    /**
     * Origins allowed by CORS: the portal, the dashboard and any extra ones.
     * API Gateway answers preflights from the same list (infra/cors-origins.cjs).
     */
    corsOrigins: [...new Set([...r.origins('PORTAL_URL'), ...r.origins('DASHBOARD_URL'), ...r.origins('CORS_EXTRA_ORIGINS')])],
    /** This API's public base URL; unset on AWS means API Gateway's own domain. */
    apiUrl: r.url('PUBLIC_API_URL'),
  }));
}

/** Every link, e-mail and redirect the service builds starts from these two. */
export function portalUrls(env: Env = process.env) {
  return section(env, (r) => ({
    portal: r.url('PORTAL_URL') ?? r.required('PORTAL_URL'),
    dashboard: r.url('DASHBOARD_URL') ?? r.required('DASHBOARD_URL'),
  }));
}

export function passwordResetRedirect(env: Env = process.env): string {
  const { portal } = portalUrls(env);
  return section(env, (r) => r.url('PASSWORD_RESET_REDIRECT_URL') ?? r.url('AUTH_RESET_REDIRECT_URL') ?? `${portal}/reset-password`);
}

/** The internal service token expected in x-api-key. Unset: the key path is closed. */
export function internalApiKey(env: Env = process.env): string | undefined {
  return section(env, (r) => r.optional('INTERNAL_API_KEY'));
}

/** The admin key for crawler intelligence. Unset: only admin users get in. */
export function adminApiKey(env: Env = process.env): string | undefined {
  return section(env, (r) => r.optional('ADMIN_API_KEY'));
}

// --- Identity ---

export function identitySettings(env: Env = process.env) {
  return section(env, (r) => ({
    url: r.url('SUPABASE_URL') ?? r.required('SUPABASE_URL'),
    anonKey: r.required('SUPABASE_ANON_KEY'),
  }));
}

/** The service-role key: only the functions that do admin work (recovery links, confirming e-mails) read it. */
export function identityAdminKey(env: Env = process.env): string | undefined {
  return section(env, (r) => r.optional('SUPABASE_SERVICE_ROLE_KEY'));
}

// --- Vendors. A vendor whose credential is absent is not configured (null). ---

export function emailSettings(env: Env = process.env) {
  return section(env, (r) => {
    const apiKey = r.optional('RESEND_API_KEY');
    if (!apiKey) return null;
    return {
      apiKey,
      baseUrl: r.url('RESEND_BASE_URL', 'https://api.resend.com')!,
      from: r.required('EMAIL_FROM'),
      teamAddress: r.optional('TEAM_NOTIFICATION_EMAIL'),
    };
  });
}

const stripePrices = (r: Reader) => ({
  starter: r.optional('STRIPE_PRICE_STARTER'),
  pro: r.optional('STRIPE_PRICE_PRO'),
  enterprise: r.optional('STRIPE_PRICE_ENTERPRISE'),
});

/** Stripe's API, for checkouts. */
export function stripeApiSettings(env: Env = process.env) {
  return section(env, (r) => {
    const secretKey = r.optional('STRIPE_SECRET_KEY');
    if (!secretKey) return null;
    return { secretKey, apiBase: r.origin('STRIPE_API_BASE', 'https://api.stripe.com'), prices: stripePrices(r) };
  });
}

/** Stripe's webhook: its signing secret, and the prices that say which plan an event is about. */
export function stripeWebhookSettings(env: Env = process.env) {
  return section(env, (r) => {
    const webhookSecret = r.optional('STRIPE_WEBHOOK_SECRET');
    if (!webhookSecret) return null;
    return { webhookSecret, prices: stripePrices(r) };
  });
}

export function taskToolSettings(env: Env = process.env) {
  return section(env, (r) => {
    const token = r.optional('CLICKUP_API_TOKEN');
    if (!token) return null;
    return {
      token,
      apiBase: r.url('CLICKUP_API_BASE', 'https://api.clickup.com/api/v2')!,
      spaceId: r.required('CLICKUP_SPACE_ID'),
    };
  });
}

export function storageSettings(env: Env = process.env) {
  return section(env, (r) => {
    const accessToken = r.optional('DROPBOX_ACCESS_TOKEN');
    const refreshToken = r.optional('DROPBOX_REFRESH_TOKEN');
    if (!accessToken && !refreshToken) return null;
    return {
      accessToken,
      refreshToken,
      appKey: refreshToken ? r.required('DROPBOX_APP_KEY') : undefined,
      appSecret: refreshToken ? r.required('DROPBOX_APP_SECRET') : undefined,
      apiBase: r.url('DROPBOX_API_BASE', 'https://api.dropboxapi.com')!,
      contentBase: r.url('DROPBOX_CONTENT_BASE', 'https://content.dropboxapi.com')!,
      rootPath: normaliseRoot(r.optional('DROPBOX_ROOT_PATH', '/Clients')!),
    };
  });
}

export function chatSettings(env: Env = process.env) {
  return section(env, (r) => {
    const webhookUrl = r.url('SLACK_WEBHOOK_URL');
    if (webhookUrl) return { mode: 'incoming-webhook' as const, webhookUrl };
    const botToken = r.optional('SLACK_BOT_TOKEN');
    if (!botToken) return null;
    return { mode: 'web-api' as const, botToken, channel: r.required('SLACK_CHANNEL'), apiBase: r.url('SLACK_API_BASE', 'https://slack.com/api')! };
  });
}

export function crmSettings(env: Env = process.env) {
  return section(env, (r) => {
    const apiKey = r.optional('CLOSE_API_KEY');
    if (!apiKey) return null;
    // The lead status (an id of the organisation's) that offboarding sets on a client's lead; optional.
    return { apiKey, apiBase: r.url('CLOSE_API_BASE', 'https://api.close.com/api/v1')!, formerClientStatusId: r.optional('CLOSE_FORMER_CLIENT_STATUS_ID') };
  });
}

/** Firecrawl, when configured, crawls instead of the built-in crawler. */
export function firecrawlSettings(env: Env = process.env) {
  return section(env, (r) => {
    const apiKey = r.optional('FIRECRAWL_API_KEY');
    return apiKey ? { apiKey, apiBase: r.url('FIRECRAWL_API_BASE', 'https://api.firecrawl.dev')! } : null;
  });
}

/** PageSpeed Insights, when configured, measures instead of the built-in page measurement. */
export function pagespeedSettings(env: Env = process.env) {
  return section(env, (r) => {
    const apiKey = r.optional('PAGESPEED_API_KEY');
    return apiKey ? { apiKey, apiBase: r.url('PAGESPEED_API_BASE', 'https://www.googleapis.com')! } : null;
  });
}

/** How the service's own crawler and page measurement reach websites. */
export function crawlSettings(env: Env = process.env) {
  return section(env, (r) => ({
    /** Only a local stage may crawl loopback and private addresses, and ports other than 80 and 443 (to reach a fixture site). */
    allowPrivateNetworks: r.bool('CRAWLER_ALLOW_PRIVATE_NETWORKS', false),
    maxPages: r.int('CRAWLER_MAX_PAGES', 20),
  }));
}

export function vendorSettings(env: Env = process.env) {
  return section(env, (r) => ({
    /** Per-attempt timeout of an outbound vendor call. */
    timeoutMs: r.int('VENDOR_TIMEOUT_MS', 8000),
    /** Attempts inside one step before the state machine's own retry takes over. */
    maxAttempts: r.int('VENDOR_MAX_ATTEMPTS', 4),
    /** The longest vendor retry hint honoured inside a step; longer waits are left to the state machine. */
    maxRetryWaitMs: r.int('VENDOR_MAX_RETRY_WAIT_MS', 10000),
  }));
}

/**
 * Each vendor's rate limit for the plan in use (null: not paced): what workflow steps pace their calls
 * to (lib/integrations/pacing.ts), and what a batch's completion is estimated from. Apart from the
 * credentials, so a function that only estimates holds none.
 */
export function vendorRates(env: Env = process.env) {
  return section(env, (r) => ({
    // Per token: 100 a minute on the Free, Unlimited and Business plans (vendor-contracts §1).
    clickup: r.pace('CLICKUP_RATE_LIMIT', '100/60'),
    // Dropbox publishes no figure; its 429s and write contention are waited out as it says.
    dropbox: r.pace('DROPBOX_RATE_LIMIT', 'none'),
    // Per team, across its keys (vendor-contracts §3).
    resend: r.pace('RESEND_RATE_LIMIT', '5/1'),
    // About one message a second, per incoming webhook or per channel (vendor-contracts §4).
    slack: r.pace('SLACK_RATE_LIMIT', '1/1'),
    // Per key (its organisation gets three times as much); Close publishes no fixed figure, its example is 20 a second.
    close: r.pace('CLOSE_RATE_LIMIT', '20/1'),
  }));
}
export type VendorRates = ReturnType<typeof vendorRates>;

// --- Workflows. serverless.yml sets each machine's ARN (the local one on the local stage). ---

export function onboardingStateMachineArn(env: Env = process.env): string {
  return section(env, (r) => r.required('ONBOARDING_STATE_MACHINE_ARN'));
}

export function onboardingBatchStateMachineArn(env: Env = process.env): string {
  return section(env, (r) => r.required('ONBOARDING_BATCH_STATE_MACHINE_ARN'));
}

export function enhancedOnboardingStateMachineArn(env: Env = process.env): string {
  return section(env, (r) => r.required('ENHANCED_ONBOARDING_STATE_MACHINE_ARN'));
}

export function offboardingStateMachineArn(env: Env = process.env): string {
  return section(env, (r) => r.required('OFFBOARDING_STATE_MACHINE_ARN'));
}

/** The booking state machine does the booking webhook's task-tool and chat work. */
export function bookingStateMachineArn(env: Env = process.env): string {
  return section(env, (r) => r.required('BOOKING_STATE_MACHINE_ARN'));
}

/** The payments state machine applies each payment event the payment webhook receives. */
export function paymentsStateMachineArn(env: Env = process.env): string {
  return section(env, (r) => r.required('PAYMENTS_STATE_MACHINE_ARN'));
}

export function crawlerRefreshStateMachineArn(env: Env = process.env): string {
  return section(env, (r) => r.required('CRAWLER_REFRESH_STATE_MACHINE_ARN'));
}

/**
 * True while an upgraded stage copies its member records into their
 * per-account table (npm run migrate:members): membership deliveries, and the
 * portal backend's onboarding of an address without a named account, are
 * answered 503 with Retry-After instead of reading or writing a member record
 * the copy has not reached yet (docs/accounts.md, Member records).
 */
export function memberRecordsCopying(env: Env = process.env): boolean {
  return section(env, (r) => r.bool('MEMBER_RECORDS_COPYING', false));
}

/** How long onboarding endpoints wait for the run before answering 202. */
export function onboardingWaitMs(env: Env = process.env): number {
  return section(env, (r) => r.int('ONBOARDING_WAIT_MS', 20000));
}

/**
 * A client leaving: how long after its subscription ends it is offboarded (a
 * payment fixed in time cancels nothing), and where its storage folder is kept
 * once closed (beside DROPBOX_ROOT_PATH, never under it).
 */
export function offboardingSettings(env: Env = process.env) {
  return section(env, (r) => ({
    graceSeconds: r.int('OFFBOARDING_GRACE_SECONDS', 14 * 86_400),
    archivePath: normaliseRoot(r.optional('DROPBOX_ARCHIVE_PATH', '/Former clients')!),
  }));
}

// --- Limits ---
// RATE_LIMIT_ADVICE, when set, is a sentence for whoever a limit refuses (the local stack says there
// how to change the limit); unset, as on AWS, a refusal says only to try again later.

export function rateLimitSettings(env: Env = process.env) {
  return section(env, (r) => {
    const advice = r.optional('RATE_LIMIT_ADVICE');
    return {
      signup: r.limit('RATE_LIMIT_SIGNUP', '5/600', advice),
      login: r.limit('RATE_LIMIT_LOGIN', '10/300', advice),
      /** Failed logins per e-mail address, from any IP (OWASP ASVS 5.0 V6.3): past it, sign-ins with the address pause. */
      loginFailures: r.limit('RATE_LIMIT_LOGIN_FAILURES', '20/900'),
      forgotPassword: r.limit('RATE_LIMIT_FORGOT_PASSWORD', '5/900', advice),
      resetPassword: r.limit('RATE_LIMIT_RESET_PASSWORD', '5/900', advice),
      perEmail: r.limit('RATE_LIMIT_PER_EMAIL', '3/900', advice),
      checkoutSession: r.limit('RATE_LIMIT_CHECKOUT_SESSION', '20/600', advice),
    };
  });
}
export type RateLimits = ReturnType<typeof rateLimitSettings>;

/** Invitation e-mails per account (every kind: a person's, a sync's, the service's), and per inviting person. */
export function invitationLimit(env: Env = process.env): RateLimit {
  return section(env, (r) => r.limit('RATE_LIMIT_INVITATIONS', '50/3600', r.optional('RATE_LIMIT_ADVICE')));
}

/**
 * Accounts a signed-in user opens with POST /api/accounts (the first, opened
 * at verification, checkout or onboarding, is not counted): each account is a
 * new invitation budget and a new company name.
 */
export function accountOpeningLimit(env: Env = process.env): RateLimit {
  return section(env, (r) => r.limit('RATE_LIMIT_ACCOUNTS', '10/86400', r.optional('RATE_LIMIT_ADVICE')));
}

/**
 * Onboarding submissions: onboarding-v2 and enhanced onboarding count
 * together, per signed-in user, per internal service key and per account;
 * enhanced runs (a crawl, a scrape and a chat post each) also per account over
 * a longer window.
 */
export function onboardingLimitSettings(env: Env = process.env) {
  return section(env, (r) => {
    const advice = r.optional('RATE_LIMIT_ADVICE');
    return {
      perUser: r.limit('RATE_LIMIT_ONBOARDING_PER_USER', '10/600', advice),
      perServiceKey: r.limit('RATE_LIMIT_ONBOARDING_PER_SERVICE_KEY', '1200/60', advice),
      perAccount: r.limit('RATE_LIMIT_ONBOARDING_PER_ACCOUNT', '20/600', advice),
      enhancedPerAccount: r.limit('RATE_LIMIT_ENHANCED_PER_ACCOUNT', '10/86400', advice),
    };
  });
}
export type OnboardingLimits = ReturnType<typeof onboardingLimitSettings>;

export function tokenSettings(env: Env = process.env) {
  return section(env, (r) => ({ verificationTtlHours: r.int('VERIFICATION_TOKEN_TTL_HOURS', 24), recoveryTtlSeconds: 3600 }));
}

// --- Everything at once ---

const integrationParts = (env: Env) => ({
  identity: () => ({ ...identitySettings(env), serviceRoleKey: identityAdminKey(env) }),
  email: () => emailSettings(env),
  payments: () => stripeApiSettings(env),
  taskTool: () => taskToolSettings(env),
  storage: () => storageSettings(env),
  chat: () => chatSettings(env),
  crm: () => crmSettings(env),
  crawler: () => ({ firecrawl: firecrawlSettings(env), pagespeed: pagespeedSettings(env) }),
});

/** What /status reports on: every integration's settings. */
export function integrationSettings(env: Env = process.env) {
  return collect(integrationParts(env));
}
export type IntegrationSettings = ReturnType<typeof integrationSettings>;

/** Every section, with every problem of every section in one error (tests, and an operator checking a .env file). */
export function loadConfig(env: Env = process.env) {
  return collect({
    stage: () => stageName(env),
    tablePrefix: () => tablePrefix(env),
    log: () => logSettings(env),
    metrics: () => metricsSettings(env),
    urls: () => ({ ...portalUrls(env), passwordResetRedirect: passwordResetRedirect(env) }),
    http: () => httpSettings(env),
    access: () => ({ internalApiKey: internalApiKey(env), adminApiKey: adminApiKey(env) }),
    ...integrationParts(env),
    stripeWebhook: () => stripeWebhookSettings(env),
    crawl: () => crawlSettings(env),
    vendors: () => vendorSettings(env),
    vendorRates: () => vendorRates(env),
    onboardingWaitMs: () => onboardingWaitMs(env),
    offboarding: () => offboardingSettings(env),
    rateLimits: () => rateLimitSettings(env),
    onboardingLimits: () => onboardingLimitSettings(env),
    tokens: () => tokenSettings(env),
  });
}
export type Config = ReturnType<typeof loadConfig>;

/** Reads every part, naming the problems of all of them at once rather than stopping at the first. */
function collect<T extends Record<string, () => unknown>>(parts: T): { [K in keyof T]: ReturnType<T[K]> } {
  const problems: string[] = [];
  const value: Record<string, unknown> = {};
  for (const [key, read] of Object.entries(parts)) {
    try {
      value[key] = read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${[...new Set(problems)].join('; ')}`, problems);
  return deepFreeze(value) as { [K in keyof T]: ReturnType<T[K]> };
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
