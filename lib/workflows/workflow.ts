// A workflow (a state machine) as the use cases start and follow it: one run
// per id, so starting the same run twice joins (or resumes) it instead of
// starting a second. ./sfn-workflow.ts runs it on Step Functions.
import { createHash } from 'node:crypto';

/** Step Functions' execution statuses, and MISSING: there is no such execution (its start failed, or never came). */
export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE' | 'MISSING';

export interface RunHandle {
  executionArn: string;
  /** The attempt whose result to wait for: the execution's redrive count. */
  attempt: number;
}

export interface Workflow {
  /**
   * Starts the run. If it already exists: a running one is joined, a finished
   * one is left as it is, and one that failed is redriven. `seenBefore`: the
   * run was submitted before, so a running execution may be a redrive, whose
   * attempt is then read (StartExecution joins it without saying so).
   */
  startOrResume(runId: string, input: Record<string, unknown>, options?: { seenBefore?: boolean }): Promise<RunHandle>;
  status(executionArn: string): Promise<ExecutionStatus>;
}

/** A run id for what `key` names (e.g. an offboarding's trigger): the account, then a digest of the key; the same key, the same run. */
export function runIdOf(accountId: string, key: string): string {
  return `${accountId}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}
