// The integrations an onboarding run provisions, and the workflows that run
// them. Both onboarding state machines are built from this at build time
// (statemachines/onboarding.ts): a branch per integration with its retry
// policy and a Catch, its held retry for a redrive, and RecordOutcome told
// the workflow's integrations; so is each step's function (infra/functions.ts).
// Adding an integration is an entry here, its step's handler file, its adapter
// and its settings.
//
// Plain data: step Lambdas import it (through outcomes.ts), so it stays light.

import type { LambdaSpec } from '../lambda-spec.ts';

/** How the state machine retries a step; the retriers are in statemachines/asl.ts. */
export type RetryPolicy = 'vendor' | 'site';

export interface IntegrationSpec {
  /** The function that does the work; its state and ${...Arn} placeholder are named after it. */
  readonly step: string;
  /** That function: its handler file (named after the step) and its settings. */
  readonly lambda: LambdaSpec;
  readonly retry: RetryPolicy;
  /** How long one call may take before the state machine gives up on it: the function's timeout and a margin. */
  readonly timeoutSeconds: number;
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

const SITE_JOB = { 'jobId.$': '$.runId' } as const;

/** Every integration, under the key the run's answer reports it by (the contract's names for the first five). */
export const integrations = {
  // A folder, three lists and eleven starter tasks.
  clickup: {
    step: 'provision-task-tool',
    retry: 'vendor',
    timeoutSeconds: 150,
    calls: { clickup: 15 },
    lambda: { handler: 'functions/onboarding/steps/provision-task-tool.ts', timeout: 120 },
  },
  // The folder tree in one batch, and its shared link.
  dropbox: {
    step: 'provision-storage-tree',
    retry: 'vendor',
    timeoutSeconds: 150,
    calls: { dropbox: 2 },
    lambda: { handler: 'functions/onboarding/steps/provision-storage-tree.ts', timeout: 120 },
  },
  // The owner's invitation, the welcome and the team's notice; the storage-ready e-mail is its part after the folder.
  resend: {
    step: 'send-onboarding-emails',
    retry: 'vendor',
    timeoutSeconds: 150,
    parts: [{ part: 'after-storage', after: 'dropbox' }],
    calls: { resend: 3 },
    lambda: { handler: 'functions/onboarding/steps/send-onboarding-emails.ts', timeout: 120 },
  },
  slack: { step: 'post-chat-notices', retry: 'vendor', timeoutSeconds: 150, calls: { slack: 1 }, lambda: { handler: 'functions/onboarding/steps/post-chat-notices.ts', timeout: 120 } },
  // The lead found by e-mail (or by domain) and updated, or created.
  close: { step: 'sync-crm-lead', retry: 'vendor', timeoutSeconds: 150, calls: { close: 3 }, lambda: { handler: 'functions/onboarding/steps/sync-crm-lead.ts', timeout: 120 } },
  // The site's analysis and scrape are a crawl job named after the run.
  // PageSpeed runs take up to a minute per form factor; a measurement, seconds.
  analysis: { step: 'analyse-site', retry: 'site', timeoutSeconds: 330, input: SITE_JOB, lambda: { handler: 'functions/crawler/steps/analyse-site.ts', timeout: 300 } },
  // A crawl stops starting requests after 180 s (Firecrawl: gives up after 240 s).
  scrape: { step: 'scrape-site', retry: 'site', timeoutSeconds: 330, input: SITE_JOB, lambda: { handler: 'functions/crawler/steps/scrape-site.ts', timeout: 300, memorySize: 1024 } },
  upload: {
    step: 'upload-site-csv',
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
}

/** The onboarding workflows, by the name of their state machine (agency-backend-<stage>-<name>). */
export const workflows = {
  onboarding: {
    integrations: ['clickup', 'dropbox', 'resend', 'slack', 'close'],
    stages: [{ name: 'Provision', run: ['clickup', 'dropbox', 'resend', 'slack', 'close'] }],
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
  },
} as const satisfies Record<string, Workflow>;

export type WorkflowName = keyof typeof workflows;
