// A client leaving, from the request to the run that takes back what
// onboarding gave (the offboarding workflow of lib/provisioning/registry.ts):
// - its owner or an admin asks (POST /api/accounts/{id}/offboard): the run
//   begins at once;
// - its subscription ends: the run waits out the grace period inside the
//   state machine, and stops there if the subscription came back meanwhile.
// One offboarding per account: the account records it (lifecycle.ts), and a
// second request answers the recorded one. Its run id comes from what
// started it, so a redelivered event or a repeated request joins the run.
import type { AccountStore } from '../accounts/accounts.ts';
import { isAccountOpen, type LifecycleStore, type Offboarding, type OffboardingTrigger } from '../accounts/lifecycle.ts';
import { Conflict, NotFound } from '../errors.ts';
import { runIdOf } from '../workflows/workflow.ts';
import type { RunStore } from '../provisioning/runs.ts';
import type { Workflow, RunHandle } from '../workflows/workflow.ts';

export const OFFBOARDING_WORKFLOW = 'offboarding';

export interface OffboardingDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  lifecycle: Pick<LifecycleStore, 'schedule' | 'unschedule'>;
  runs: Pick<RunStore, 'begin'>;
  /** The offboarding state machine. */
  workflow: Pick<Workflow, 'startOrResume'>;
  /** Whether this onboarding run of the account is still going: a client is not taken back while still being set up. */
  onboardingRunning(runId: string): Promise<boolean>;
  /** How long after its subscription ends a client is offboarded. */
  graceSeconds: number;
  now?: () => Date;
}

/** The account's offboarding as its caller is answered: its run, and whether it has begun taking back. */
export interface OffboardingAnswer {
  accountId: string;
  runId: string;
  /** `scheduled`: waiting for its time (the grace period); `offboarding` or `closed`: as the account's status says. */
  status: 'scheduled' | 'offboarding' | 'closed';
  notBefore: string;
  handle?: RunHandle;
}

/** The offboarding its owner or an admin asked for: begins now, or answers the one already recorded. */
export async function requestOffboarding(deps: OffboardingDeps, accountId: string, request: { reason: string; by: string }): Promise<OffboardingAnswer> {
  const at = now(deps);
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new NotFound('No such account, or not one you belong to');
  const recorded = account.offboarding;
  // A subscription's offboarding still in its grace period gives way to the request; any other is the answer.
  const waiting = recorded?.trigger === 'subscription' && Date.parse(recorded.not_before) > at.getTime() && isAccountOpen(account.status);
  if (recorded && !waiting) return answerRecorded(deps, accountId, recorded, account.status);
  if (!isAccountOpen(account.status)) throw new Conflict('This account has no offboarding to answer with', 'account_closed');
  if (account.onboarding_run_id && (await deps.onboardingRunning(account.onboarding_run_id))) {
    throw new Conflict('The account is still being onboarded: close it once its onboarding run has finished', 'onboarding_running');
  }
  const offboarding: Offboarding = {
    run_id: runIdOf(accountId, `${OFFBOARDING_WORKFLOW}:request:${at.toISOString()}`),
    trigger: 'request',
    reason: request.reason,
    requested_by: request.by,
    requested_at: at.toISOString(),
    not_before: at.toISOString(),
  };
  return schedule(deps, accountId, offboarding, recorded?.run_id);
}

/** What a subscription's change means for the account's offboarding. */
export interface SubscriptionChange {
  subscriptionId?: string;
  /** Whether the subscription still runs (trialing, active, past due, ...). */
  live: boolean;
  /** When the provider said so (epoch seconds): a subscription's grace period counts from its end. */
  at: number;
}

/**
 * Follows the account's subscription: its end schedules the offboarding for
 * the end of the grace period; a live subscription again (a new checkout, a
 * fixed payment) forgets one still waiting, whose run then stops.
 */
export async function followSubscription(deps: OffboardingDeps, accountId: string, change: SubscriptionChange): Promise<void> {
  const account = await deps.accounts.getAccount(accountId);
  if (!account || !isAccountOpen(account.status)) return;
  const recorded = account.offboarding;
  if (change.live) {
    if (recorded?.trigger === 'subscription') await deps.lifecycle.unschedule(accountId, recorded.run_id);
    return;
  }
  if (!change.subscriptionId) return;
  const runId = runIdOf(accountId, `${OFFBOARDING_WORKFLOW}:subscription:${change.subscriptionId}`);
  // Another offboarding (asked for, or this one) is recorded: it is the one.
  if (recorded && recorded.run_id !== runId) return;
  const endedAt = new Date(change.at * 1000);
  await schedule(deps, accountId, {
    run_id: runId,
    trigger: 'subscription' satisfies OffboardingTrigger,
    reason: 'The subscription ended',
    requested_by: 'stripe',
    requested_at: endedAt.toISOString(),
    not_before: new Date(endedAt.getTime() + deps.graceSeconds * 1000).toISOString(),
  });
}

/** Records the offboarding on the account and starts its run; when another got there first, answers that one. */
async function schedule(deps: OffboardingDeps, accountId: string, offboarding: Offboarding, replacing?: string): Promise<OffboardingAnswer> {
  if (!(await deps.lifecycle.schedule(accountId, offboarding, replacing))) {
    const account = await deps.accounts.getAccount(accountId);
    if (!account?.offboarding) throw new Conflict('This account is closed', 'account_closed');
    return answerRecorded(deps, accountId, account.offboarding, account.status);
  }
  return start(deps, accountId, offboarding, 'scheduled');
}

/** Starts (or joins) the recorded offboarding's run: a start that failed after the record was written is made by the next ask. */
async function answerRecorded(deps: OffboardingDeps, accountId: string, offboarding: Offboarding, status: string): Promise<OffboardingAnswer> {
  const state = status === 'closed' || status === 'erased' ? 'closed' : status === 'offboarding' ? 'offboarding' : 'scheduled';
  if (state === 'closed') return { accountId, runId: offboarding.run_id, status: state, notBefore: offboarding.not_before };
  return start(deps, accountId, offboarding, state);
}

async function start(deps: OffboardingDeps, accountId: string, offboarding: Offboarding, status: OffboardingAnswer['status']): Promise<OffboardingAnswer> {
  const account = await deps.accounts.getAccount(accountId);
  const first = await deps.runs.begin(offboarding.run_id, accountId, OFFBOARDING_WORKFLOW);
  const handle = await deps.workflow.startOrResume(
    offboarding.run_id,
    { accountId, runId: offboarding.run_id, email: account?.contact_email ?? '', notBefore: offboarding.not_before },
    { seenBefore: !first },
  );
  return { accountId, runId: offboarding.run_id, status, notBefore: offboarding.not_before, handle };
}

const now = (deps: Pick<OffboardingDeps, 'now'>) => deps.now?.() ?? new Date();
