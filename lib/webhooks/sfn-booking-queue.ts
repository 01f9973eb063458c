// The booking queue as executions of the booking state machine.
import { ExecutionAlreadyExists, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { BookingQueue } from './booking-queue.ts';

export function sfnBookingQueue(sfn: SFNClient, stateMachineArn: string): BookingQueue {
  return {
    async enqueue(name, job) {
      try {
        await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(job) }));
      } catch (error) {
        // Started before (by an earlier delivery whose answer was lost): that execution is this job.
        if (!(error instanceof ExecutionAlreadyExists)) throw error;
      }
    },
  };
}
