// The whole description of each integration a workflow runs, and the workflows.
// Everything else follows from it: each step's function (infra/functions.ts),
// the state machines (statemachines/workflows.ts), the run answer's
// integrations, the pacing of calls (`calls`, `vendor`), the follow-ups'
// advice (`remedy`), and from each vendor (`vendors`) its /status check, its
// emulator and the bench's vendor lists. Adding an integration is an entry
// here (and its vendor), its step's handler, its adapter and its emulator.
// Plain data: step Lambdas import it, so it stays light.
import type { AccountStatus } from '../accounts/accounts.ts';
import type { IntegrationSettings } from '../config.ts';
import type { LambdaSpec } from '../lambda-spec.ts';

/** How the state machine retries a step; the retriers are in statemachines/asl.ts. */
export type RetryPolicy = 'vendor' | 'site';

/** One step of an integration's work, as a state machine runs it: its function, retries, pacing and parts. */
export interface StepSpec {
  /** The function that does the work; its state and ${...Arn} placeholder are named after it. */
  readonly step: string;
  /** That function: its handler file (named after the step) and its settings. */
  readonly lambda: LambdaSpec;
  readonly retry: RetryPolicy;
  /** How long one call may take before the state machine gives up on it: the function's timeout and a margin. */
  readonly timeoutSeconds: number;
  /** What an operator checks when it failed, before redriving (npm run executions -- follow-ups). */
  readonly remedy: string;
  /** Input beyond the run's own (accountId, email, runId, portalSlug), as ASL Parameters. */
  readonly input?: Readonly<Record<string, string>>;
  /**
   * The vendor calls one run of the step makes for a new client, per vendor:
   * what the step books at once on each vendor's pacing schedule, and what a
   * batch's completion is estimated from.
   */
  readonly calls?: Readonly<Record<string, number>>;
  /**
   * Parts of the work that wait for another integration: in a workflow with
   * both, the other's branch runs the part (the step called with `part`)
   * right after it succeeds. A part's failure is this integration's.
   */
  readonly parts?: readonly { readonly part: string; readonly after: string }[];
}

/** An integration: what onboarding provisions at one vendor (its own fields), and how offboarding takes it back. */
export interface IntegrationSpec extends StepSpec {
  /** Whose API it calls: a key of `vendors` (its settings, /status check and emulator). */
  readonly vendor: string;
  /** The step that takes back what this one made when a client leaves (the offboarding workflow); reversible until erasure. */
  readonly takeBack?: StepSpec;
}

/** Which of an integration's steps a workflow runs. */
export type Action = 'provision' | 'takeBack';

/** The step a workflow of this action runs for the integration, with the integration's vendor. */
export function actionOf(spec: IntegrationSpec, action: Action = 'provision'): IntegrationSpec {
  if (action === 'provision') return spec;
  const step = spec[action];
  if (!step) throw new Error(`The integration of step ${spec.step} declares no ${action} step`);
  return { vendor: spec.vendor, ...step };
}

/** A vendor integrations call: how /status reaches it, and the emulator that stands for it locally. */
export interface VendorSpec {
  /** Its section of lib/config.ts's integrationSettings(), which /status reads. */
  readonly settings: keyof IntegrationSettings;
  /** The address /status sends an unauthenticated GET (any answer proves it reachable); none: not configured. */
  readonly probeUrl: (settings: never) => string | null | undefined | false;
  /** How it is set up, in a few words, for /status. */
  readonly mode: (settings: never) => string;
  /** The emulator of local/emulators (its LocalVendor) that stands for it in the local stack; none: its adapters reach what they need themselves. */
  readonly emulator?: string;
}

/** Settings of one section, as a vendor's functions read them. */
type Of<K extends keyof IntegrationSettings> = NonNullable<IntegrationSettings[K]>;
const vendor = <K extends keyof IntegrationSettings>(spec: {
  settings: K;
  probeUrl: (settings: IntegrationSettings[K]) => string | null | undefined | false;
  mode: (settings: Of<K>) => string;
  emulator?: string;
}): VendorSpec => spec as unknown as VendorSpec;

/** The vendors the integrations call, by the name an integration gives (its `vendor`). */
export const vendors: Readonly<Record<string, VendorSpec>> = {
  clickup: vendor({ settings: 'taskTool', probeUrl: (s) => s?.apiBase, mode: () => 'api token', emulator: 'clickup' }),
  dropbox: vendor({ settings: 'storage', probeUrl: (s) => s?.apiBase, mode: (s) => (s.refreshToken ? 'refresh token' : 'access token'), emulator: 'dropbox' }),
  resend: vendor({ settings: 'email', probeUrl: (s) => s?.baseUrl, mode: () => 'api', emulator: 'resend' }),
  slack: vendor({ settings: 'chat', probeUrl: (s) => s && (s.mode === 'incoming-webhook' ? s.webhookUrl : s.apiBase), mode: (s) => s.mode, emulator: 'slack' }),
  close: vendor({ settings: 'crm', probeUrl: (s) => s?.apiBase, mode: () => 'api key', emulator: 'close' }),
  // Firecrawl and PageSpeed when their keys are set; else the service's own crawler and measurement, which reach the client's website.
  crawler: vendor({
    settings: 'crawler',
    probeUrl: (s) => s.firecrawl?.apiBase,
    mode: (s) => [s.firecrawl ? 'firecrawl' : 'built-in crawler', s.pagespeed ? 'pagespeed' : 'built-in measurement'].join(' + '),
  }),
};

const SITE_JOB = { 'jobId.$': '$.runId' } as const;

/** Every integration, under the key the run's answer reports it by (the contract's names for the first five). */
export const integrations = {
  // A folder, three lists and eleven starter tasks.
  clickup: {
    step: 'provision-task-tool',
    vendor: 'clickup',
    remedy: 'Check ClickUp: CLICKUP_API_TOKEN is valid and CLICKUP_SPACE_ID exists; if ClickUp was down, wait for it.',
    retry: 'vendor',
    timeoutSeconds: 150,
    calls: { clickup: 15 },
    lambda: { handler: 'functions/onboarding/steps/provision-task-tool.ts', timeout: 120 },
    // Every task of the folder archived (ClickUp's API archives tasks, not folders); onboarding again restores them.
    takeBack: {
      step: 'archive-task-tool',
      remedy: 'Check ClickUp: CLICKUP_API_TOKEN is valid and may edit the tasks of the client folder; if ClickUp was down, wait for it.',
      retry: 'vendor',
      timeoutSeconds: 150,
      calls: { clickup: 15 },
      lambda: { handler: 'functions/offboarding/steps/archive-task-tool.ts', timeout: 120 },
    },
  },
  // The folder tree in one batch, and its shared link.
  dropbox: {
    step: 'provision-storage-tree',
    vendor: 'dropbox',
    remedy: 'Check Dropbox: the token (DROPBOX_REFRESH_TOKEN, DROPBOX_APP_KEY/SECRET) is not revoked and DROPBOX_ROOT_PATH exists; if Dropbox was down, wait.',
    retry: 'vendor',
    timeoutSeconds: 150,
    calls: { dropbox: 2 },
    lambda: { handler: 'functions/onboarding/steps/provision-storage-tree.ts', timeout: 120 },
    // The shared links revoked and the folder moved under the archive path; onboarding again moves it back.
    takeBack: {
      step: 'archive-storage-tree',
      remedy: 'Check Dropbox: the token may still edit DROPBOX_ROOT_PATH and its archive folder; if Dropbox was down, wait.',
      retry: 'vendor',
      timeoutSeconds: 150,
      calls: { dropbox: 3 },
      lambda: { handler: 'functions/offboarding/steps/archive-storage-tree.ts', timeout: 120 },
    },
  },
  // The owner's invitation, the welcome and the team's notice; the storage-ready e-mail is its part after the folder.
  resend: {
    step: 'send-onboarding-emails',
    vendor: 'resend',
    remedy: 'Check Resend: RESEND_API_KEY is valid and the sending domain is verified; a spent daily or monthly quota needs a bigger plan or the next day.',
    retry: 'vendor',
    timeoutSeconds: 150,
    parts: [{ part: 'after-storage', after: 'dropbox' }],
    calls: { resend: 3 },
    lambda: { handler: 'functions/onboarding/steps/send-onboarding-emails.ts', timeout: 120 },
    // The owners' closing e-mail: what was closed, how to ask for their data, how to come back.
    takeBack: {
      step: 'send-closing-emails',
      remedy: 'Check Resend: RESEND_API_KEY is valid and the sending domain is verified.',
      retry: 'vendor',
      timeoutSeconds: 150,
      calls: { resend: 2 },
      lambda: { handler: 'functions/offboarding/steps/send-closing-emails.ts', timeout: 120 },
    },
  },
  slack: {
    step: 'post-chat-notices',
    vendor: 'slack',
    remedy: 'Check Slack: SLACK_BOT_TOKEN is valid and the bot is in SLACK_CHANNEL (or SLACK_WEBHOOK_URL still exists).',
    retry: 'vendor',
    timeoutSeconds: 150,
    calls: { slack: 1 },
    lambda: { handler: 'functions/onboarding/steps/post-chat-notices.ts', timeout: 120 },
    takeBack: {
      step: 'post-closing-notice',
      remedy: 'Check Slack: SLACK_BOT_TOKEN is valid and the bot is in SLACK_CHANNEL (or SLACK_WEBHOOK_URL still exists).',
      retry: 'vendor',
      timeoutSeconds: 150,
      calls: { slack: 1 },
      lambda: { handler: 'functions/offboarding/steps/post-closing-notice.ts', timeout: 120 },
    },
  },
  // The lead found by e-mail (or by domain) and updated, or created.
  close: {
    step: 'sync-crm-lead',
    vendor: 'close',
    remedy: 'Check Close: CLOSE_API_KEY is valid; a 402 means the plan limits what the key may do.',
    retry: 'vendor',
    timeoutSeconds: 150,
    calls: { close: 3 },
    lambda: { handler: 'functions/onboarding/steps/sync-crm-lead.ts', timeout: 120 },
    // The lead's status set to the agency's former-client status (CLOSE_FORMER_CLIENT_STATUS_ID).
    takeBack: {
      step: 'mark-crm-lead-former',
      remedy: 'Check Close: CLOSE_API_KEY is valid and CLOSE_FORMER_CLIENT_STATUS_ID is a lead status of the organisation.',
      retry: 'vendor',
      timeoutSeconds: 150,
      calls: { close: 1 },
      lambda: { handler: 'functions/offboarding/steps/mark-crm-lead-former.ts', timeout: 120 },
    },
  },
  // The site's analysis and scrape are a crawl job named after the run.
  // PageSpeed runs take up to a minute per form factor; a measurement, seconds.
  analysis: {
    step: 'analyse-site',
    vendor: 'crawler',
    remedy: "The client's website could not be measured: check that it answers (or PAGESPEED_API_KEY, if set); a site that refuses us needs the client.",
    retry: 'site',
    timeoutSeconds: 330,
    input: SITE_JOB,
    lambda: { handler: 'functions/crawler/steps/analyse-site.ts', timeout: 300 },
  },
  // A crawl stops starting requests after 180 s (Firecrawl: gives up after 240 s).
  scrape: {
    step: 'scrape-site',
    vendor: 'crawler',
    remedy: "The client's website could not be crawled: check that it answers (or FIRECRAWL_API_KEY, if set); a site that refuses us needs the client.",
    retry: 'site',
    timeoutSeconds: 330,
    input: SITE_JOB,
    lambda: { handler: 'functions/crawler/steps/scrape-site.ts', timeout: 300, memorySize: 1024 },
  },
  upload: {
    step: 'upload-site-csv',
    vendor: 'dropbox',
    remedy: 'The crawl could not be uploaded to Dropbox: check the Dropbox token and DROPBOX_ROOT_PATH.',
    retry: 'vendor',
    timeoutSeconds: 150,
    input: SITE_JOB,
    calls: { dropbox: 1 },
    lambda: { handler: 'functions/crawler/steps/upload-site-csv.ts', timeout: 120 },
  },
} as const satisfies Record<string, IntegrationSpec>;

export type Integration = keyof typeof integrations;

export interface Stage<K extends string = Integration> {
  /** The Parallel state that runs it; its results land at $.<name in lower camel case>. */
  readonly name: string;
  /** Integrations that run side by side; a stage starts when the one before has finished. */
  readonly run: readonly K[];
  /** A bookkeeping step given the stage's outcomes afterwards; its failure never stops the run. */
  readonly then?: { readonly step: string; readonly input: Readonly<Record<string, string>> };
}

export interface Workflow<K extends string = Integration> {
  /** The workflow's integrations, in the order its answer lists them. */
  readonly integrations: readonly K[];
  readonly stages: readonly Stage<K>[];
  /** Which step of each integration the stages run: provisioning unless said. */
  readonly action?: Action;
  /**
   * The run's first step, given the account; its answer (at $.slug) holds the
   * portal slug the steps are told. `waits`: the run first waits until its
   * input's notBefore; `mayStop`: an answer with `proceed: false` ends the run there.
   */
  readonly opening: { readonly step: string; readonly waits?: true; readonly mayStop?: true };
  /** The account's status once the run has recorded its outcome, by whether every integration succeeded; `members`: its member records' too. */
  readonly settles: { readonly succeeded: AccountStatus; readonly failed: AccountStatus; readonly members?: true };
}

const ONBOARDED = { succeeded: 'active', failed: 'needs_attention', members: true } as const;

/** The workflows, by the name of their state machine (agency-backend-<stage>-<name>). */
export const workflows = {
  onboarding: {
    integrations: ['clickup', 'dropbox', 'resend', 'slack', 'close'],
    stages: [{ name: 'Provision', run: ['clickup', 'dropbox', 'resend', 'slack', 'close'] }],
    opening: { step: 'assign-slug' },
    settles: ONBOARDED,
  },
  'enhanced-onboarding': {
    // The contract's order.
    integrations: ['dropbox', 'analysis', 'scrape', 'upload', 'close', 'slack'],
    stages: [
      // Each needs only the account and its URL; the crawl job is closed with what they found.
      { name: 'Gather', run: ['dropbox', 'analysis', 'scrape', 'close'], then: { step: 'finish-crawl-job', input: SITE_JOB } },
      // The CSV needs the scrape and the folder.
      { name: 'Upload', run: ['upload'] },
      // The team's notice reports the site findings and the CSV.
      { name: 'Announce', run: ['slack'] },
    ],
    opening: { step: 'assign-slug' },
    settles: ONBOARDED,
  },
  // A client leaving: after the grace period its run waits out (none when asked for directly), each integration's
  // take-back step side by side; the account is closed once all have succeeded (lib/offboarding/).
  offboarding: {
    integrations: ['clickup', 'dropbox', 'resend', 'slack', 'close'],
    stages: [{ name: 'TakeBack', run: ['clickup', 'dropbox', 'resend', 'slack', 'close'] }],
    action: 'takeBack',
    opening: { step: 'begin-offboarding', waits: true, mayStop: true },
    settles: { succeeded: 'closed', failed: 'offboarding' },
  },
} as const satisfies Record<string, Workflow>;

export type WorkflowName = keyof typeof workflows;

/** The registry's integrations and the vendors they call, as what is derived from them takes them (a test passes its own). */
export interface Registry {
  integrations: Readonly<Record<string, Pick<IntegrationSpec, 'vendor'>>>;
  vendors: Readonly<Record<string, VendorSpec>>;
}

/** The vendors these integrations call, each once, in order. */
export const vendorsOf = (keys: readonly string[], registry: Pick<Registry, 'integrations'> = { integrations }): string[] => [
  ...new Set(keys.map((key) => registry.integrations[key]!.vendor)),
];

