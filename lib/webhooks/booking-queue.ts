// The booking webhook answers at once and leaves the task-tool and chat work
// to the booking state machine (statemachines/booking.ts), one execution per
// delivered event (lib/workflows/queue.ts).
import { jobName, type Queue } from '../workflows/queue.ts';
import type { BookingEvent } from './booking-events.ts';

export interface BookingJob {
  accountId: string;
  /** The delivery's event key (webhook_events). */
  eventKey: string;
  booking: BookingEvent;
}

export type BookingQueue = Queue<BookingJob>;

export const bookingJobName = (eventKey: string) => jobName('booking', eventKey);
