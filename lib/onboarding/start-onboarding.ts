import type { AccountStore } from '../accounts/accounts.ts';
import type { IntegrationStore } from '../accounts/integrations.ts';
import { accountClosed, isAccountOpen } from '../accounts/lifecycle.ts';
import { NotFound } from '../errors.ts';
import type { OnboardingIntake } from './intake.ts';
import { runIdFor } from './run-id.ts';
import { ENHANCED_INTEGRATIONS, ENHANCED_WORKFLOW, INTEGRATIONS } from './outcomes.ts';
import { progressOf, type RunResult } from '../provisioning/outcomes.ts';
import type { RunRecord, RunStore } from '../provisioning/runs.ts';
import type { Workflow, RunHandle } from '../workflows/workflow.ts';

export interface OnboardingDeps {
  accounts: AccountStore;
  integrations: IntegrationStore;
  runs: RunStore;
  workflow: Workflow;
  wait: Waiting;
}

export interface Waiting {
  /** How long to wait for the run's result before answering "running". */
  ms: number;
  /**
   * The wait between two looks at the run's record is a twentieth of the time
   * waited so far, between firstPollMs (default 25) and pollMs (default 1000):
   * whenever the run ends, the answer follows within about 5% of its duration,
   * with few reads over a long run.
   */
  firstPollMs?: number;
  pollMs?: number;
  /** How often to ask the workflow whether the execution is still going at all; default every second. */
  statusEveryMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export type RunAnswer =
  | { state: 'finished'; runId: string; result: RunResult }
  /** `progress`: where each integration stands (outcomes.ts progressOf). */
  | { state: 'running'; runId: string; accountId: string; progress?: Record<string, string> }
  /** No result, and none coming: the execution stopped without recording one, or it never started. */
  | { state: 'broken'; reason: 'stopped' | 'not_started'; runId: string; accountId: string };

export interface StartedRun {
  runId: string;
  accountId: string;
  handle: RunHandle;
}

export interface BeginOptions {
  /** Another workflow than onboarding-v2's (its run ids and records say so). */
  workflow?: string;
  /** Whatever the run needs in place before its state machine starts. */
  beforeStart?: (run: { runId: string; accountId: string }) => Promise<void>;
  /** Mixed into the run id: the same submission again becomes a run of its own (an account reopened). */
  runKey?: string;
}

/**
 * For the account the submission is for (onboarding-account.ts decides it):
 * 1. Keeps the member record of the person the form is about (status
 *    provisioning), unless their address has one already.
 * 2. Updates the account with the latest contact and company details.
 * 3. Ensures the integration row, with its webhook secret.
 * 4. Starts the onboarding run (or joins or resumes the same submission's run).
 */
export async function beginOnboarding(
  deps: Omit<OnboardingDeps, 'wait'>,
  accountId: string,
  intake: OnboardingIntake,
  options: BeginOptions = {},
): Promise<StartedRun> {
  const existing = await deps.accounts.getAccount(accountId);
  if (existing && !isAccountOpen(existing.status)) throw accountClosed(existing.status);
  await deps.accounts.claimMember({ email: intake.email, account_id: accountId, role: 'owner' });
  const runId = runIdFor(accountId, intake, [options.workflow, options.runKey].filter(Boolean).join(':') || undefined);
  await deps.accounts.saveAccountDetails(accountId, {
    company_name: intake.companyName,
    company_url: intake.companyUrl,
    company_domain: intake.companyDomain,
    contact_email: intake.email,
    phone: intake.phone,
    location: intake.location,
    timezone: intake.timezone,
    requested_plan: intake.plan,
    metadata: intake.metadata,
    onboarding_run_id: runId,
  });
  await deps.integrations.ensure(accountId);
  const firstSubmission = await deps.runs.begin(runId, accountId, options.workflow);
  await options.beforeStart?.({ runId, accountId });
  const handle = await deps.workflow.startOrResume(runId, { accountId, email: intake.email, runId }, { seenBefore: !firstSubmission });
  return { runId, accountId, handle };
}

/**
 * How long before the caller's own deadline the wait ends: time for one more
 * look at the run (two reads that queue behind every other request on a busy
 * stack) and for the answer itself.
 */
export const ANSWER_MARGIN_MS = 5000;

/** Onboards and waits a bounded time for the answer; `answerBy` as for awaitRun. */
export async function onboard(deps: OnboardingDeps, accountId: string, intake: OnboardingIntake, answerBy?: number): Promise<RunAnswer> {
  const run = await beginOnboarding(deps, accountId, intake);
  return awaitRun(deps, run, answerBy);
}

/**
 * Waits for the run's result of this attempt. A run that stops without one
 * (it failed before recording an outcome) answers with the latest result it
 * has, or "broken"; a run still going when time is up answers "running".
 * Time is up after `wait.ms`, or ANSWER_MARGIN_MS before `answerBy` (the
 * time, on wait.now's clock, by which the caller must answer: the function's
 * own end), whichever comes first: a run slow to start still gets its 202.
 */
export async function awaitRun(deps: Pick<OnboardingDeps, 'runs' | 'workflow' | 'wait'>, run: StartedRun, answerBy = Infinity): Promise<RunAnswer> {
  const now = deps.wait.now ?? Date.now;
  const sleep = deps.wait.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxPollMs = deps.wait.pollMs ?? 1000;
  const minPollMs = Math.min(deps.wait.firstPollMs ?? 25, maxPollMs);
  const statusEveryMs = deps.wait.statusEveryMs ?? 1000;
  const started = now();
  const deadline = Math.min(started + deps.wait.ms, answerBy - ANSWER_MARGIN_MS);
  let statusAt = started;
  for (;;) {
    const record = await deps.runs.get(run.runId);
    if (record?.result && record.attempt >= run.handle.attempt) return { state: 'finished', runId: run.runId, result: record.result };
    // Now and then, ask whether the execution is still going at all.
    if (now() - statusAt >= statusEveryMs) {
      statusAt = now();
      const status = await deps.workflow.status(run.handle.executionArn);
      if (status !== 'RUNNING') {
        const latest = await deps.runs.get(run.runId);
        return latest?.result
          ? { state: 'finished', runId: run.runId, result: latest.result }
          : { state: 'broken', reason: status === 'MISSING' ? 'not_started' : 'stopped', runId: run.runId, accountId: run.accountId };
      }
    }
    if (now() >= deadline) return { state: 'running', runId: run.runId, accountId: run.accountId, progress: progressOfRun(record) };
    const pause = Math.min(maxPollMs, Math.max(minPollMs, (now() - started) / 20));
    await sleep(Math.min(pause, Math.max(0, deadline - now())));
  }
}

/**
 * The current answer of a run of the account (the route's access rule has
 * checked the caller may read that account's runs; a run id begins with its
 * account's id, and a run of another account is answered as unknown).
 */
export async function readRun(
  deps: Pick<OnboardingDeps, 'runs'> & { workflow: Pick<OnboardingDeps['workflow'], 'status'>; executionArnOf: (runId: string, workflow?: string) => string },
  accountId: string,
  runId: string,
): Promise<RunAnswer> {
  const record = await deps.runs.get(runId);
  if (record?.account_id !== accountId) throw new NotFound('No onboarding run with this id');
  if (record.result) return { state: 'finished', runId, result: record.result };
  // A workflow that cannot be asked just now (throttled, unavailable) is taken as still running: asking again will tell.
  // One with no such execution is not: the run was recorded, then its start failed, and nothing will ever finish it.
  const status = await deps.workflow.status(deps.executionArnOf(runId, record.workflow)).catch(() => 'RUNNING' as const);
  if (status === 'RUNNING') return { state: 'running', runId, accountId: record.account_id, progress: progressOfRun(record) };
  // It stopped, perhaps just after the record was read: the result it stored before stopping is the answer (as in awaitRun).
  const latest = await deps.runs.get(runId);
  return latest?.result
    ? { state: 'finished', runId, result: latest.result }
    : { state: 'broken', reason: status === 'MISSING' ? 'not_started' : 'stopped', runId, accountId: record.account_id };
}

/** Where each integration of the run's workflow stands (none known before its record is written). */
export function progressOfRun(record: RunRecord | undefined): Record<string, string> | undefined {
  if (!record) return undefined;
  return progressOf(Object.values(record.progress ?? {}), record.workflow === ENHANCED_WORKFLOW ? ENHANCED_INTEGRATIONS : INTEGRATIONS);
}
