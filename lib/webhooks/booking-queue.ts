// The booking webhook answers at once and leaves the task-tool and chat work
// to a small Standard state machine, which retries and, if a vendor keeps
// failing, stays FAILED where an operator can see and redrive it. The
// execution is named after the delivery's event key, so the same event can
// never be queued twice (AWS keeps execution names for 90 days).
import { createHash } from 'node:crypto';
import type { BookingEvent } from './booking-events.ts';

export interface BookingJob {
  accountId: string;
  /** The delivery's event key (webhook_events). */
  eventKey: string;
  booking: BookingEvent;
}

export interface BookingQueue {
  /** Queues the job under this name; a name queued before is left as it is. */
  enqueue(name: string, job: BookingJob): Promise<void>;
}

/** An execution name (at most 80 characters of a restricted set) derived from the event key. */
export const bookingJobName = (eventKey: string) => `booking-${createHash('sha256').update(eventKey).digest('hex').slice(0, 48)}`;
