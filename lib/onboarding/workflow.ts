// The onboarding state machine as the endpoints see it. The execution name is
// the run id, derived from the account and the submission, so submitting the
// same thing twice joins (or resumes) one run instead of starting a second.
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  RedriveExecutionCommand,
  StartExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';

/** Step Functions' execution statuses, and MISSING: there is no such execution (its start failed, or never came). */
export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE' | 'MISSING';

export interface RunHandle {
  executionArn: string;
  /** The attempt whose result to wait for: the execution's redrive count. */
  attempt: number;
}

export interface OnboardingWorkflow {
  /**
   * Starts the run. If it already exists: a running one is joined, a finished
   * one is left as it is, and one that failed is redriven. `seenBefore`: the
   * run was submitted before, so a running execution may be a redrive, whose
   * attempt is then read (StartExecution joins it without saying so).
   */
  startOrResume(runId: string, input: Record<string, unknown>, options?: { seenBefore?: boolean }): Promise<RunHandle>;
  status(executionArn: string): Promise<ExecutionStatus>;
}

export function sfnWorkflow(sfn: SFNClient, stateMachineArn: string): OnboardingWorkflow {
  const executionArnOf = (runId: string) => `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${runId}`;
  return {
    async startOrResume(runId, input, options = {}) {
      try {
        const res = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: runId, input: JSON.stringify(input) }));
        // A first submission's start is attempt 0; only a run seen before can be one being redriven.
        if (!options.seenBefore) return { executionArn: res.executionArn!, attempt: 0 };
        const joined = await sfn.send(new DescribeExecutionCommand({ executionArn: res.executionArn! }));
        return { executionArn: res.executionArn!, attempt: joined.redriveCount ?? 0 };
      } catch (error) {
        if (!(error instanceof ExecutionAlreadyExists)) throw error;
      }
      const executionArn = executionArnOf(runId);
      const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      const attempt = described.redriveCount ?? 0;
      if (described.status === 'RUNNING' || described.status === 'SUCCEEDED' || described.redriveStatus !== 'REDRIVABLE') {
        return { executionArn, attempt };
      }
      await sfn.send(new RedriveExecutionCommand({ executionArn }));
      return { executionArn, attempt: attempt + 1 };
    },
    async status(executionArn) {
      try {
        const res = await sfn.send(new DescribeExecutionCommand({ executionArn }));
        return res.status as ExecutionStatus;
      } catch (error) {
        if (error instanceof ExecutionDoesNotExist) return 'MISSING';
        throw error;
      }
    },
  };
}
