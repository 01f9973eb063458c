import type { AccountStore } from '../../accounts/accounts.ts';
import { OPEN, type LifecycleStore } from '../../accounts/lifecycle.ts';
import { workflows, type Workflow } from '../../provisioning/registry.ts';
import type { FollowUps } from '../../provisioning/follow-ups.ts';
import { ALL_INTEGRATIONS, INTEGRATIONS } from '../outcomes.ts';
import type { Integration } from '../../provisioning/registry.ts';
import type { IntegrationError, RunResult, Outcome } from '../../provisioning/outcomes.ts';
import type { RunStore } from '../../provisioning/runs.ts';

/** What a parallel branch of the state machine ended with (a Catch leaves the error there). */
interface BranchOutput {
  integration?: Integration;
  outcome?: Outcome | 'unchanged';
  error?: { Error?: string; Cause?: string };
  /** A part of another integration's work that ran in this branch and failed (the storage-ready e-mail after the folder). */
  then?: BranchOutput;
}

export interface RecordInput {
  accountId: string;
  runId: string;
  portalSlug: string;
  /** The execution's redrive count: a later attempt's result replaces an earlier one. */
  attempt: number;
  /** What the branches ended with; nested as the machine gathers them (flattened here). */
  branches: (BranchOutput | BranchOutput[])[];
  /** The workflow's integrations, as its state machine names them; onboarding-v2's when absent. */
  integrations?: readonly Integration[];
  /** The workflow (its state machine's name): how the account's status settles; onboarding-v2's when absent. */
  workflow?: string;
}

export interface RecordDeps {
  runs: RunStore;
  accounts: Pick<AccountStore, 'setMemberStatusForAccount'>;
  lifecycle: Pick<LifecycleStore, 'transition'>;
  now?: () => Date;
  followUps: FollowUps;
}

export interface RecordAnswer {
  success: boolean;
  /** One entry per integration of the workflow: its state machine chooses what to retry from this. */
  failed: Partial<Record<Integration, boolean>>;
}

/**
 * An integration's outcome is its latest report: a step may report in parts
 * (the e-mails, called again after the storage tree), and each call does all
 * the integration owes at that moment, so a later report supersedes an
 * earlier one. Skipped only when every report was skipped.
 *
 * The last step: gathers what every integration reported, settles the account's
 * status (and members', for an onboarding), opens or resolves a follow-up per integration, and
 * then stores the run's result (what the API answers).
 */
export async function recordOutcome(deps: RecordDeps, input: RecordInput): Promise<RecordAnswer> {
  const workflow = input.integrations ?? INTEGRATIONS;
  const unknown = workflow.filter((i) => !(ALL_INTEGRATIONS as readonly string[]).includes(i));
  if (unknown.length) throw new Error(`RecordOutcome was given unknown integrations: ${unknown.join(', ')}`);
  const branches = input.branches.flat();
  const reports = await deps.runs.steps(input.runId);
  const integrations: Partial<Record<Integration, Outcome>> = {};
  const details: Partial<Record<Integration, Record<string, unknown>>> = {};
  const errors: IntegrationError[] = [];

  for (const integration of workflow) {
    const mine = reports.filter((r) => r.integration === integration).sort((a, b) => a.at.localeCompare(b.at));
    const fallback = branchFailure(branches, integration);
    if (mine.length === 0) {
      // The step could not report (it timed out, or crashed): the branch's caught error tells us.
      integrations[integration] = 'failed';
      details[integration] = {};
      errors.push(fallback ?? { integration, message: `The ${integration} step did not report an outcome`, context: {} });
      continue;
    }
    const latest = mine.at(-1)!;
    if (latest.outcome === 'waiting') {
      // Its branch ended while the step waited for a vendor (a timeout, a crash): a failure, as the branch says.
      integrations[integration] = 'failed';
      details[integration] = {};
      errors.push(fallback ?? { integration, message: `The ${integration} step stopped while waiting for ${String(latest.details.vendor)}`, context: {} });
      continue;
    }
    integrations[integration] = mine.every((r) => r.outcome === 'skipped') ? 'skipped' : latest.outcome;
    details[integration] = Object.assign({}, ...mine.filter((r) => r.outcome !== 'waiting').map((r) => r.details));
    if (latest.outcome === 'failed' && latest.error) errors.push({ integration, ...latest.error });
  }

  const success = workflow.every((i) => integrations[i] !== 'failed');
  const result: RunResult = {
    success,
    accountId: input.accountId,
    portalSlug: input.portalSlug,
    integrations,
    details,
    ...(success ? {} : { errors }),
  };
  await settleAccount(deps, input, success);
  for (const integration of workflow) {
    const error = errors.find((e) => e.integration === integration);
    if (error) await deps.followUps.open(input.accountId, input.runId, error);
    else await deps.followUps.resolve(input.accountId, integration);
  }
  // The answer last: whoever sees it (the endpoint is waiting for it) finds statuses and follow-ups already in place.
  await deps.runs.saveResult(input.runId, input.accountId, input.attempt, result);
  return { success, failed: Object.fromEntries(workflow.map((i) => [i, integrations[i] === 'failed'])) };
}

/**
 * The account's status after the run, as its workflow says (registry `settles`), from the statuses
 * the run works in: an onboarding's from the open ones (an offboarding that began meanwhile stands),
 * an offboarding's from offboarding.
 */
async function settleAccount(deps: RecordDeps, input: RecordInput, success: boolean): Promise<void> {
  const workflow: Workflow<string> = workflows[(input.workflow ?? 'onboarding') as keyof typeof workflows];
  const to = success ? workflow.settles.succeeded : workflow.settles.failed;
  const from = workflow.action === 'takeBack' ? (['offboarding'] as const) : OPEN;
  const at = (deps.now?.() ?? new Date()).toISOString();
  const moved = await deps.lifecycle.transition(input.accountId, from, to, to === 'closed' ? { closed_at: at } : {});
  if (moved && workflow.settles.members) await deps.accounts.setMemberStatusForAccount(input.accountId, success ? 'active' : 'needs_attention');
}

function branchFailure(branches: BranchOutput[], integration: Integration): IntegrationError | undefined {
  const candidates = branches.flatMap((b) => [b, ...(b.then ? [b.then] : [])]);
  const failed = candidates.find((b) => b.integration === integration && b.outcome === 'failed');
  if (!failed) return undefined;
  const name = failed.error?.Error ?? 'States.TaskFailed';
  let message = `The ${integration} step failed (${name})`;
  try {
    // On AWS a Lambda error's Cause is the JSON of {errorType, errorMessage}; our vendor errors' messages are client-safe.
    const cause = JSON.parse(failed.error?.Cause ?? '') as { errorType?: string; errorMessage?: string };
    if (cause.errorType === 'VendorUnavailable' || cause.errorType === 'VendorThrottled' || cause.errorType === 'VendorRejected') message = cause.errorMessage ?? message;
  } catch {
    // not JSON: a States.* error
  }
  return { integration, message, context: { error: name } };
}
