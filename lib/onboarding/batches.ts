// Importing existing clients: a batch of onboardings. Each valid row becomes
// an ordinary onboarding run; the batch's own state machine starts them in the
// order of the rows, and the vendors' pacing (lib/integrations/pacing.ts) then
// serves them in about that order. The batch's view counts where its runs
// stand and estimates when the last will finish from the vendors' limits.
import { normaliseEmail } from '../accounts/accounts.ts';
import { DomainError, InvalidInput, NotFound, type ErrorDetail } from '../errors.ts';
import type { Rows, RowProblem } from '../http/rows.ts';
import { cadenceOf, type Rate } from '../integrations/pacing.ts';
import type { IntegrationSpec } from '../provisioning/registry.ts';
import { normaliseIntake, type OnboardingIntake } from './intake.ts';
import type { Integration } from '../provisioning/registry.ts';
import type { RunRecord, RunStore } from '../provisioning/runs.ts';

export type RowState = 'queued' | 'started' | 'not_started';

export interface BatchRecord {
  batch_id: string;
  created_at: string;
  /** Who submitted it: the internal service, the admin key, or an admin user's id. */
  created_by: string;
  /** Rows taken (queued, then started) and rows refused, by line. */
  rows: number;
  invalid: RowProblem[];
}

export interface BatchRow {
  line: number;
  intake: OnboardingIntake;
  state: RowState;
  run_id?: string;
  account_id?: string;
  /** Why a row whose fields were valid could not be started (a client-safe message). */
  error?: string;
}

export interface BatchStore {
  create(batch: BatchRecord, rows: BatchRow[]): Promise<void>;
  get(batchId: string): Promise<BatchRecord | undefined>;
  /** Every row, in line order. */
  rows(batchId: string): Promise<BatchRow[]>;
  /** The first `limit` rows still queued, in line order. */
  queued(batchId: string, limit: number): Promise<BatchRow[]>;
  /** Records how a queued row went (a row already recorded keeps what it had). */
  settle(batchId: string, line: number, outcome: Pick<BatchRow, 'state' | 'run_id' | 'account_id' | 'error'>): Promise<void>;
}

export interface BatchQueue {
  /** Starts the batch's own workflow, which starts its rows; starting it twice is starting it once. */
  start(batchId: string): Promise<void>;
}

export interface SubmitDeps {
  batches: BatchStore;
  queue: BatchQueue;
  newId?: () => string;
  now?: () => Date;
}

export interface Submitted {
  batchId: string;
  queued: number;
  invalid: RowProblem[];
}

/**
 * 1. Each row the schema let through is normalised as a portal form is; a
 *    row that fails, or names an address an earlier row named, is refused by
 *    its line.
 * 2. The batch and its rows are stored, every valid row queued.
 * 3. Its workflow starts them. A batch with no valid row is refused whole.
 */
export async function submitBatch(deps: SubmitDeps, by: string, given: Rows): Promise<Submitted> {
  const invalid: RowProblem[] = [...given.invalid];
  const rows: BatchRow[] = [];
  const lineOf = new Map<string, number>();
  for (const row of given.rows) {
    let intake: OnboardingIntake;
    try {
      intake = normaliseIntake(row.value);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      invalid.push({ line: row.line, errors: (error.details ?? [{ message: error.message }]).map(withoutBody) });
      continue;
    }
    const earlier = lineOf.get(normaliseEmail(intake.email));
    if (earlier !== undefined) {
      invalid.push({ line: row.line, errors: [{ path: '/email', message: `is on line ${earlier} already` }] });
      continue;
    }
    lineOf.set(intake.email, row.line);
    rows.push({ line: row.line, intake, state: 'queued' });
  }
  invalid.sort((a, b) => a.line - b.line);
  if (rows.length === 0) {
    throw new InvalidRows(invalid);
  }
  const batchId = (deps.newId ?? (() => crypto.randomUUID()))();
  await deps.batches.create({ batch_id: batchId, created_at: (deps.now?.() ?? new Date()).toISOString(), created_by: by, rows: rows.length, invalid }, rows);
  await deps.queue.start(batchId);
  return { batchId, queued: rows.length, invalid };
}

/** A batch none of whose rows could be taken: each refused by its line. */
export class InvalidRows extends InvalidInput {
  constructor(invalid: RowProblem[]) {
    super(
      'No row of the batch could be taken',
      invalid.flatMap((p) => p.errors.map((e) => ({ path: `/rows/${p.line}${e.path ?? ''}`, message: e.message }))).slice(0, 50),
      'no_valid_rows',
    );
  }
}

/** A row's problems are about the row, not the request's body. */
const withoutBody = (detail: ErrorDetail): ErrorDetail => ({ ...detail, path: detail.path?.replace(/^\/body/, '') });

export interface StartDeps {
  batches: BatchStore;
  /** Starts one row's onboarding run (not waiting for it), as the internal service onboards a client. */
  startRow: (intake: OnboardingIntake) => Promise<{ runId: string; accountId: string }>;
}

/**
 * Starts the next `max` queued rows, one after another in line order, and
 * says whether any is left. A row that cannot be started for a reason of its
 * own (a domain error: e.g. its address is held elsewhere) is recorded as not
 * started, and the batch goes on; anything else fails the step, which its
 * state machine retries (a row started twice joins its one run: run ids
 * derive from the account and the submission).
 */
export async function startBatchRows(deps: StartDeps, batchId: string, max = 25): Promise<{ started: number; remaining: boolean }> {
  const rows = await deps.batches.queued(batchId, max + 1);
  let started = 0;
  for (const row of rows.slice(0, max)) {
    try {
      const run = await deps.startRow(row.intake);
      await deps.batches.settle(batchId, row.line, { state: 'started', run_id: run.runId, account_id: run.accountId });
      started++;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await deps.batches.settle(batchId, row.line, { state: 'not_started', error: error.message });
    }
  }
  return { started, remaining: rows.length > max };
}

/** Where one row stands. */
export type RowProgress = 'queued' | 'not_started' | 'running' | 'waiting' | 'done' | 'held';

export interface BatchView {
  batchId: string;
  createdAt: string;
  rows: number;
  invalid: RowProblem[];
  counts: Record<RowProgress, number>;
  /** When the last run should finish, from the vendors' limits and the calls still to make; absent once all have ended. */
  estimatedCompletion?: string;
  /** Each row's line, state, and its run once started. */
  items: { line: number; email: string; state: RowProgress; runId?: string; accountId?: string; error?: string }[];
}

export interface ViewDeps {
  batches: BatchStore;
  runs: Pick<RunStore, 'getMany'>;
  /** The integrations a run provisions, with the vendor calls each makes. */
  integrations: Readonly<Record<Integration, IntegrationSpec>>;
  workflow: readonly Integration[];
  rates: Readonly<Record<string, Rate | null>>;
  now?: () => Date;
}

export async function batchView(deps: ViewDeps, batchId: string): Promise<BatchView> {
  const batch = await deps.batches.get(batchId);
  if (!batch) throw new NotFound('No batch with this id', 'batch_not_found');
  const rows = await deps.batches.rows(batchId);
  const runs = new Map((await deps.runs.getMany(rows.flatMap((r) => r.run_id ?? []))).map((run) => [run.run_id, run]));
  const now = deps.now?.() ?? new Date();

  const callsLeft: Record<string, number> = {};
  const owe = (integration: Integration) => {
    for (const [vendor, calls] of Object.entries(deps.integrations[integration].calls ?? {})) callsLeft[vendor] = (callsLeft[vendor] ?? 0) + calls;
  };
  const items = rows.map((row) => {
    const run = row.run_id ? runs.get(row.run_id) : undefined;
    const state = progressOfRow(row, run);
    if (state === 'queued') deps.workflow.forEach(owe);
    if (state === 'running' || state === 'waiting') {
      const finished = new Set(Object.values(run?.progress ?? {}).filter((p) => !p.part && (p.outcome === 'success' || p.outcome === 'skipped')).map((p) => p.integration));
      deps.workflow.filter((i) => !finished.has(i)).forEach(owe);
    }
    return {
      line: row.line,
      email: row.intake.email,
      state,
      ...(row.run_id ? { runId: row.run_id, accountId: row.account_id } : {}),
      ...(row.error ? { error: row.error } : {}),
    };
  });
  const counts: Record<RowProgress, number> = { queued: 0, not_started: 0, running: 0, waiting: 0, done: 0, held: 0 };
  for (const item of items) counts[item.state]++;

  // The busiest vendor sets the pace: its calls still to make, at the pace the service keeps to its limit.
  const seconds = Math.max(
    0,
    ...Object.entries(callsLeft).map(([vendor, calls]) => {
      const rate = deps.rates[vendor];
      return rate ? (calls * cadenceOf(rate).intervalMs) / 1000 : 0;
    }),
  );
  const ongoing = counts.queued + counts.running + counts.waiting > 0;
  return {
    batchId,
    createdAt: batch.created_at,
    rows: batch.rows,
    invalid: batch.invalid,
    counts,
    ...(ongoing ? { estimatedCompletion: new Date(now.getTime() + seconds * 1000).toISOString() } : {}),
    items,
  };
}

function progressOfRow(row: BatchRow, run: RunRecord | undefined): RowProgress {
  if (row.state !== 'started') return row.state;
  if (run?.status === 'succeeded') return 'done';
  if (run?.status === 'failed') return 'held';
  return Object.values(run?.progress ?? {}).some((p) => p.outcome === 'waiting') ? 'waiting' : 'running';
}
