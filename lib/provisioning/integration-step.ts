// The contract every integration step of the onboarding state machines keeps:
// - it reports its outcome (and, on failure, a client-safe message and a
//   structured context) for the run, where RecordOutcome gathers them;
// - its vendor calls are paced (lib/integrations/pacing.ts); a wait for a
//   slot or a vendor's "later" is no failure: the step answers "waiting" with
//   when, the state machine waits until then and calls it again with that answer;
// - an account closed under the run (account_closed) makes it skipped;
// - other errors are rethrown, so the state machine's Retry and Catch apply;
// - in the RetryFailedIntegrations phase it is called with hold=true and the
//   execution's redrive count: on the first pass (count 0) it fails with
//   AwaitingRedrive, leaving the execution FAILED at that task for an
//   operator; a redrive runs it for real.
import { Conflict, DomainError, VendorError } from '../errors.ts';
import { MustWait, type Booking, type Pacing } from '../integrations/pacing.ts';
import { logger } from '../log.ts';

export interface StepInput {
  accountId: string;
  email: string;
  runId: string;
  portalSlug: string;
  /** Which part of the integration's work this call is, when it is done in parts. */
  part?: string;
  hold?: boolean;
  redriveCount?: number;
  /** This step's previous answer in this run (the state machine passes it back after a wait). */
  previous?: Partial<Waiting<string>>;
}

/** A step's answer while it waits: for whom, until when (ISO), and the slots it booked. */
export interface Waiting<N extends string> {
  integration: N;
  part?: string;
  outcome: 'waiting';
  vendor: string;
  until: string;
  bookings: Booking[];
}

export type StepAnswer<N extends string> = { integration: N; outcome: StepWork['outcome'] } | Waiting<N>;

/** What the work of a step did: success (with what it made) or skipped (with why). */
export interface StepWork {
  outcome: 'success' | 'skipped';
  details: Record<string, unknown>;
}

/**
 * Where a step's reports go: the run's record (./runs.ts), keyed
 * by integration name. The names are the workflow's own (lib/onboarding/outcomes.ts);
 * this module only passes them through.
 */
export interface StepReports<N extends string> {
  recordStep(
    runId: string,
    report: { integration: N; part?: string; outcome: StepWork['outcome'] | 'failed' | 'waiting'; details: Record<string, unknown>; error?: Failure; at: string },
  ): Promise<void>;
}

export interface Failure {
  message: string;
  context: Record<string, unknown>;
}

export class AwaitingRedrive extends Error {
  override name = 'AwaitingRedrive';
}

/** How a step's vendor calls are paced: the shared pacing, and how many calls to book at once per vendor. */
export interface StepPace {
  pacing: Pacing;
  calls?: Readonly<Record<string, number>>;
}

/** How long a throttle that reached the step unpaced, and said nothing of when, is waited out. */
const UNHINTED_WAIT_MS = 5000;

export function integrationStep<N extends string, I extends StepInput = StepInput>(
  integration: N,
  runs: StepReports<N>,
  work: (input: I) => Promise<StepWork>,
  pace?: StepPace,
) {
  return async (input: I): Promise<StepAnswer<N>> => {
    if (input.hold && !input.redriveCount) {
      throw new AwaitingRedrive(`${integration} failed in this run and is held for an operator: fix the cause, then redrive this execution`);
    }
    const report = (r: Pick<Parameters<StepReports<N>['recordStep']>[1], 'outcome' | 'details' | 'error'>) =>
      runs.recordStep(input.runId, { integration, part: input.part, at: new Date().toISOString(), ...r });
    const previous = input.previous;
    const resumed = previous?.outcome === 'waiting' && previous.integration === integration && previous.part === input.part;
    // A part (e.g. the storage-ready e-mail) books its few calls one at a time; the integration's own call books what it declares.
    const step = { bookings: resumed ? previous.bookings : undefined, calls: input.part ? undefined : pace?.calls };
    const run = () => (pace ? pace.pacing.within(step, () => work(input)) : work(input));
    try {
      const result = await run();
      await report({ outcome: result.outcome, details: result.details });
      return { integration, outcome: result.outcome };
    } catch (error) {
      // The account closed under the run: nothing to do, and nothing to retry.
      if (error instanceof Conflict && error.code === 'account_closed') {
        await report({ outcome: 'skipped', details: { reason: error.message } });
        return { integration, outcome: 'skipped' };
      }
      const wait = waitFor(error);
      if (wait) {
        const until = new Date(wait.until).toISOString();
        await report({ outcome: 'waiting', details: { vendor: wait.vendor, until } });
        return { integration, ...(input.part ? { part: input.part } : {}), outcome: 'waiting', vendor: wait.vendor, until, bookings: wait.bookings };
      }
      const failure = describeFailure(integration, error);
      logger.warn('integration step failed', { integration, runId: input.runId, accountId: input.accountId, failure, error });
      await report({ outcome: 'failed', details: {}, error: failure }).catch(() => undefined);
      throw error;
    }
  };
}

/**
 * A wait, never a failure: a slot too far off or a vendor's "later" (MustWait), or a throttle that
 * reached the step without pacing (VendorThrottled), waited out as long as the vendor said.
 */
function waitFor(error: unknown): Pick<MustWait, 'vendor' | 'until' | 'bookings'> | undefined {
  if (error instanceof MustWait) return error;
  if (error instanceof VendorError && error.name === 'VendorThrottled') {
    const afterMs = (error.context.retryAfterMs as number | undefined) ?? UNHINTED_WAIT_MS;
    return { vendor: error.vendor, until: Date.now() + afterMs + Math.random() * 1000, bookings: [] };
  }
  return undefined;
}

/** A client-safe account of a failure: our own message, the vendor's code and status, never raw vendor text. */
export function describeFailure(integration: string, error: unknown): Failure {
  if (error instanceof VendorError) return { message: error.message, context: { vendor: error.vendor, ...error.context } };
  // Domain errors' messages are written to be shown (lib/errors.ts), e.g. an unreachable client website.
  if (error instanceof DomainError) return { message: error.message, context: { errorType: error.name, code: error.code } };
  return { message: `The ${integration} step failed unexpectedly`, context: { errorType: (error as Error | null)?.name ?? 'Error' } };
}
