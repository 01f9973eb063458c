// A queue (queue.ts) as executions of a state machine.
import { ExecutionAlreadyExists, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { Queue } from './queue.ts';

export function sfnQueue<J>(sfn: SFNClient, stateMachineArn: string): Queue<J> {
  return {
    async enqueue(name, job) {
      try {
        // The same name and input while the first is running is that execution again (AWS answers as it did then).
        await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(job) }));
        return 'queued';
      } catch (error) {
        // Started before, and finished (or with another input): that execution is this job.
        if (error instanceof ExecutionAlreadyExists) return 'already-queued';
        throw error;
      }
    },
  };
}
