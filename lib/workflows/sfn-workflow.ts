// A workflow (./workflow.ts) as executions of a Step Functions state machine:
// the execution name is the run id.
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  RedriveExecutionCommand,
  StartExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import type { ExecutionStatus, Workflow } from './workflow.ts';

export function sfnWorkflow(sfn: SFNClient, stateMachineArn: string): Workflow {
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
