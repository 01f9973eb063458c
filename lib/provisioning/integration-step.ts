// The contract every integration step of the onboarding state machine keeps:
// - it reports its outcome (and, on failure, a client-safe message and a
//   structured context) for the run, where RecordOutcome gathers them;
// - errors are rethrown, so the state machine's Retry and Catch apply;
// - in the RetryFailedIntegrations phase it is called with hold=true and the
//   execution's redrive count: on the first pass (count 0) it fails with
//   AwaitingRedrive, leaving the execution FAILED at that task for an
//   operator; a redrive runs it for real.
import { DomainError, VendorError } from '../errors.ts';
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
}

/** What the work of a step did: success (with what it made) or skipped (with why). */
export interface StepWork {
  outcome: 'success' | 'skipped';
  details: Record<string, unknown>;
}

/**
 * Where a step's reports go: the run's record (lib/onboarding/runs.ts), keyed
 * by integration name. The names are the workflow's own (lib/onboarding/outcomes.ts);
 * this module only passes them through.
 */
export interface StepReports<N extends string> {
  recordStep(
    runId: string,
    report: { integration: N; part?: string; outcome: StepWork['outcome'] | 'failed'; details: Record<string, unknown>; error?: Failure; at: string },
  ): Promise<void>;
}

export interface Failure {
  message: string;
  context: Record<string, unknown>;
}

export class AwaitingRedrive extends Error {
  override name = 'AwaitingRedrive';
}

export function integrationStep<N extends string, I extends StepInput = StepInput>(integration: N, runs: StepReports<N>, work: (input: I) => Promise<StepWork>) {
  return async (input: I): Promise<{ integration: N; outcome: StepWork['outcome'] }> => {
    if (input.hold && !input.redriveCount) {
      throw new AwaitingRedrive(`${integration} failed in this run and is held for an operator: fix the cause, then redrive this execution`);
    }
    const report = (r: Pick<Parameters<StepReports<N>['recordStep']>[1], 'outcome' | 'details' | 'error'>) =>
      runs.recordStep(input.runId, { integration, part: input.part, at: new Date().toISOString(), ...r });
    try {
      const result = await work(input);
      await report({ outcome: result.outcome, details: result.details });
      return { integration, outcome: result.outcome };
    } catch (error) {
      const failure = describeFailure(integration, error);
      logger.warn('integration step failed', { integration, runId: input.runId, accountId: input.accountId, failure, error });
      await report({ outcome: 'failed', details: {}, error: failure }).catch(() => undefined);
      throw error;
    }
  };
}

/** A client-safe account of a failure: our own message, the vendor's code and status, never raw vendor text. */
export function describeFailure(integration: string, error: unknown): Failure {
  if (error instanceof VendorError) return { message: error.message, context: { vendor: error.vendor, ...error.context } };
  // Domain errors' messages are written to be shown (lib/errors.ts), e.g. an unreachable client website.
  if (error instanceof DomainError) return { message: error.message, context: { errorType: error.name, code: error.code } };
  return { message: `The ${integration} step failed unexpectedly`, context: { errorType: (error as Error | null)?.name ?? 'Error' } };
}
