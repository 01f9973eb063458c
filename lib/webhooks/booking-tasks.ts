// Which task in the task tool stands for which booking, per account, and a
// short per-booking lease so that two events of one booking (a cancel right
// after the booking, or both halves of a reschedule) never write its task at
// the same time, nor create two. Each booking is a claim taken in turns
// (lib/store/claims.ts): its value is the task record, rewritten by each
// event's holder, who also ends its turn by saving it.
import type { ClaimPolicy, Claims } from '../store/claims.ts';

export interface BookingTaskRecord {
  taskId: string;
  url?: string;
  state: 'booked' | 'cancelled';
  /** When the event that last wrote the task happened (ISO): an older event never overwrites it. */
  eventAt: string;
  startTime?: string;
}

export interface BookingTasks {
  get(accountId: string, bookingRef: string): Promise<BookingTaskRecord | undefined>;
  /** Takes the booking's lease for this holder (also when it already holds it); false while another holds it. */
  claim(accountId: string, bookingRef: string, holder: string): Promise<boolean>;
  /** Records the booking's task and ends the holder's lease; false when the holder had lost the lease to another. */
  save(accountId: string, bookingRef: string, holder: string, record: BookingTaskRecord): Promise<boolean>;
  release(accountId: string, bookingRef: string, holder: string): Promise<void>;
}

export interface BookingKey {
  accountId: string;
  bookingRef: string;
}

/** The record as the provisioning ledger keeps what it made: the task id under `id`. */
export interface StoredBookingTask {
  id: string;
  url?: string;
  state: BookingTaskRecord['state'];
  event_at: string;
  start_time?: string;
}

export const BOOKING_TASK_CLAIMS: ClaimPolicy = {
  kind: 'turns',
  // Longer than one step can run (two minutes), so a lease outlives its holder only when the holder died.
  leaseMs: 180_000,
};

export function bookingTasksOf(claims: Claims<BookingKey, StoredBookingTask>): BookingTasks {
  return {
    async get(accountId, bookingRef) {
      const v = await claims.value({ accountId, bookingRef });
      return v && { taskId: v.id, ...(v.url ? { url: v.url } : {}), state: v.state, eventAt: v.event_at, ...(v.start_time ? { startTime: v.start_time } : {}) };
    },
    claim: async (accountId, bookingRef, holder) => (await claims.acquire({ accountId, bookingRef }, holder)).state === 'acquired',
    save: (accountId, bookingRef, holder, record) =>
      claims.finish({ accountId, bookingRef }, holder, {
        id: record.taskId,
        ...(record.url ? { url: record.url } : {}),
        state: record.state,
        event_at: record.eventAt,
        ...(record.startTime ? { start_time: record.startTime } : {}),
      }),
    release: (accountId, bookingRef, holder) => claims.release({ accountId, bookingRef }, holder),
  };
}
