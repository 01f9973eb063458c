// The service's adapters, built from configuration, once per Lambda instance
// on the first call of the function that asks for one. Settings are read and
// checked at cold start; the module and SDK behind an adapter are imported on
// its first method call, so a function loads supabase-js only for a bearer
// token, Stripe only for a checkout or payment event, Resend only to send.
// Every factory reads its settings through its own section of config.ts, by
// literal name: a bundle holds exactly the names of the settings its code reads,
// and each function is given those and no others.
import { createHash } from 'node:crypto';
import {
  chatSettings,
  ConfigError,
  crawlSettings,
  crmSettings,
  emailSettings,
  firecrawlSettings,
  identityAdminKey,
  identitySettings,
  pagespeedSettings,
  portalUrls,
  storageSettings,
  stripeApiSettings,
  stripeWebhookSettings,
  taskToolSettings,
  vendorRates,
  vendorSettings,
  type VendorRates,
} from '../config.ts';
import type { SiteAnalyzer, SiteScraper } from '../crawler/site.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import type { Chat } from '../integrations/chat.ts';
import type { Crm } from '../integrations/crm.ts';
import { interactivePolicyFrom, policyFrom } from '../integrations/http-client.ts';
import type { Mailer } from '../integrations/mailer.ts';
import { pacing, type Pacing } from '../integrations/pacing.ts';
import type { Storage } from '../integrations/storage.ts';
import type { TaskTool } from '../integrations/task-tool.ts';
import type { Payments } from '../payments/payments.ts';
import type { StepPace } from '../provisioning/integration-step.ts';
import { actionOf, integrations, type Action, type Integration, type IntegrationSpec } from '../provisioning/registry.ts';
import { kept, onFirstCall } from './lazy.ts';
import { paceSchedule } from './stores.ts';

/**
 * Who waits on a vendor's answer decides how long it may take. A person (any
 * HTTP request): at most three attempts and short waits, so a failing vendor
 * answers inside API Gateway's 30 s rather than as its timeout; a slot on the
 * vendor's schedule is waited for only when it is near. A workflow step: the
 * full policy; the state machine waits for a slot or a vendor's "later" and retries the rest.
 */
export type Waiting = 'person' | 'workflow';

/**
 * The schedules every vendor call takes its slot from (lib/integrations/pacing.ts), one per process:
 * a workflow step's, and a person's, who waits for a slot at most as long as for a vendor's retry hint.
 */
export const vendorPacing = (): Pacing => kept('pacing', () => pacing({ schedule: paceSchedule(), personWaitMs: vendorSettings().maxRetryWaitMs }));

/** How an integration's step paces its vendor calls: the shared schedules, and what it books at once (the registry's calls for that step). */
export const stepPace = (integration: Integration, action?: Action): StepPace => ({
  pacing: vendorPacing(),
  calls: actionOf(integrations[integration] as IntegrationSpec, action).calls,
});

/**
 * How a vendor credential's calls retry and are paced: every caller of the
 * credential takes its slots from one schedule, named by a digest of the
 * credential, never by it.
 */
function policy(waiting: Waiting, vendor: keyof VendorRates, credential: string) {
  const key = `${vendor}#${createHash('sha256').update(credential).digest('hex').slice(0, 16)}`;
  const pace = vendorPacing().of({ vendor, key, rate: vendorRates()[vendor] });
  return { ...(waiting === 'person' ? interactivePolicyFrom(vendorSettings()) : policyFrom(vendorSettings())), pace };
}

// --- Identity: every caller of it is an HTTP request, so a person waits. ---

/** The identity provider for users' own calls (their tokens, sign-in, sign-up). */
export function identity(): IdentityProvider {
  return kept('identity', () => {
    const settings = identitySettings();
    return onFirstCall(async () => (await import('../identity/supabase-identity.ts')).supabaseIdentity(settings, interactivePolicyFrom(vendorSettings())), {
      canCreateRecoveryLinks: false,
    });
  });
}

/** The identity provider with its admin interface too (the service-role key), for the functions whose work needs it. */
export function adminIdentity(): IdentityProvider {
  return kept('adminIdentity', () => {
    const settings = { ...identitySettings(), serviceRoleKey: identityAdminKey() };
    return onFirstCall(async () => (await import('../identity/supabase-identity.ts')).supabaseIdentity(settings, interactivePolicyFrom(vendorSettings())), {
      canCreateRecoveryLinks: settings.serviceRoleKey !== undefined,
    });
  });
}

// --- Payments ---

const paymentsNotConfigured = (name: string) => new ConfigError(`${name} is not set: payments are not configured`);

/** Stripe's checkout API. A person waits: Stripe's own retries (each with the request's idempotency key) are the interactive few. */
export function checkoutPayments(): Pick<Payments, 'sells' | 'startCheckout' | 'openBillingPortal'> {
  return kept('checkoutPayments', () => {
    const settings = stripeApiSettings();
    if (!settings) {
      // Every use fails as misconfiguration (500), never as the caller's fault.
      const fail = () => {
        throw paymentsNotConfigured('STRIPE_SECRET_KEY');
      };
      return { sells: fail, startCheckout: async () => fail(), openBillingPortal: async () => fail() };
    }
    const { timeoutMs, maxAttempts } = interactivePolicyFrom(vendorSettings());
    return onFirstCall(
      async () => (await import('../payments/stripe-payments.ts')).stripeCheckout(settings, { timeoutMs, maxNetworkRetries: Math.max(0, maxAttempts - 1) }),
      { sells: (plan) => Boolean(settings.prices[plan]) },
    );
  });
}

/** Stripe's webhook deliveries, verified against the endpoint's signing secret. */
export function paymentEvents(): Pick<Payments, 'verifiedEvent'> {
  return kept('paymentEvents', () => {
    const settings = stripeWebhookSettings();
    if (!settings) return { verifiedEvent: async () => Promise.reject(paymentsNotConfigured('STRIPE_WEBHOOK_SECRET')) };
    return onFirstCall(async () => (await import('../payments/stripe-events.ts')).stripeEvents(settings));
  });
}

// --- Vendors. An unconfigured vendor is null: its step answers "skipped". ---

/** A vendor's port: null when its settings say it is not configured, else loaded on its first call. */
function vendor<S, P extends object>(key: string, settings: () => S | null, load: (settings: S) => Promise<P>): P | null {
  return kept(key, () => {
    const configured = settings();
    return configured && onFirstCall(() => load(configured));
  });
}

export const mailer = (waiting: Waiting): Mailer | null =>
  vendor(`mailer:${waiting}`, emailSettings, async (s) => (await import('../integrations/resend-mailer.ts')).resendMailer(s, policy(waiting, 'resend', s.apiKey)));

/** Where the team's own notices about new clients go, if anywhere. */
export const teamAddress = (): string | undefined => emailSettings()?.teamAddress;

export const taskTool = (waiting: Waiting = 'workflow'): TaskTool | null =>
  vendor(`taskTool:${waiting}`, taskToolSettings, async (s) => (await import('../integrations/clickup-task-tool.ts')).clickupTaskTool(s, policy(waiting, 'clickup', s.token)));

export const storage = (waiting: Waiting = 'workflow'): Storage | null =>
  vendor(`storage:${waiting}`, storageSettings, async (s) =>
    (await import('../integrations/dropbox-storage.ts')).dropboxStorage(s, policy(waiting, 'dropbox', s.refreshToken ?? s.accessToken!)),
  );

/** The folder under which each client's storage tree is made. */
export const storageRoot = (): string => storageSettings()?.rootPath ?? '/Clients';

export const chat = (): Chat | null =>
  vendor('chat', chatSettings, async (s) =>
    (await import('../integrations/slack-chat.ts')).slackChat(s, policy('workflow', 'slack', s.mode === 'incoming-webhook' ? s.webhookUrl : `${s.botToken} ${s.channel}`)),
  );

export const crm = (waiting: Waiting = 'workflow'): Crm | null =>
  vendor(`crm:${waiting}`, crmSettings, async (s) => (await import('../integrations/close-crm.ts')).closeCrm(s, policy(waiting, 'close', s.apiKey)));

// --- The crawler: the vendors when their keys are configured, else our own measurement and crawler. ---

async function ownFetcher() {
  const { siteFetcher, systemNetwork } = await import('../crawler/site-fetcher.ts');
  const { CRAWLER_USER_AGENT } = await import('../crawler/robots.ts');
  const { allowPrivateNetworks } = crawlSettings();
  // Per request: a slow page must not eat a crawl's time, and no page needs more than 5 MiB.
  return siteFetcher({
    allowPrivateNetworks,
    timeoutMs: 10_000,
    maxBytes: 5 * 1024 * 1024,
    maxRedirects: 5,
    userAgent: `${CRAWLER_USER_AGENT} (+${portalUrls().portal})`,
  }, systemNetwork);
}

export function siteAnalyzer(): SiteAnalyzer {
  return kept('siteAnalyzer', () => {
    const pagespeed = pagespeedSettings();
    return onFirstCall<SiteAnalyzer>(async () =>
      pagespeed
        ? (await import('../crawler/pagespeed-analyzer.ts')).pagespeedAnalyzer(pagespeed, policyFrom(vendorSettings()))
        : (await import('../crawler/page-measurement.ts')).measurementAnalyzer(await ownFetcher()),
    );
  });
}

export function siteScraper(): SiteScraper {
  return kept('siteScraper', () => {
    const firecrawl = firecrawlSettings();
    crawlSettings(); // checked at cold start, read on the first crawl
    return onFirstCall<SiteScraper>(async () =>
      firecrawl
        ? (await import('../crawler/firecrawl-scraper.ts')).firecrawlScraper(firecrawl, policyFrom(vendorSettings()))
        : (await import('../crawler/builtin-scraper.ts')).builtinScraper(await ownFetcher()),
    );
  });
}

/** The most pages one crawl reads. */
export const crawlMaxPages = (): number => crawlSettings().maxPages;
