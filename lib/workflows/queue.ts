// Work an inbound webhook hands on: the webhook answers at once, and a small
// Standard state machine does the work with retries; if it keeps failing, the
// execution stays FAILED where an operator can see and redrive it. Each job
// is an execution named after what it is about (a delivery's event key), so
// the same job can never be queued twice: AWS refuses a second execution of a
// name for 90 days, longer than any provider retries a delivery.
import { createHash } from 'node:crypto';

export interface Queue<J> {
  /** Queues the job under this name: 'queued', or 'already-queued' when a job of this name was queued before. */
  enqueue(name: string, job: J): Promise<'queued' | 'already-queued'>;
}

/** An execution name (at most 80 characters of a restricted set): the kind of job, then a digest of its key. */
export const jobName = (kind: string, key: string) => `${kind}-${createHash('sha256').update(key).digest('hex').slice(0, 48)}`;
