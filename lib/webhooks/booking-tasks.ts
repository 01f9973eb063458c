// Which task in the task tool stands for which booking, per account, and a
// short per-booking lease so that two events of one booking (a cancel right
// after the booking, or both halves of a reschedule) never write its task at
// the same time, nor create two.
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
  /** Records the booking's task and ends the lease. */
  save(accountId: string, bookingRef: string, record: BookingTaskRecord): Promise<void>;
  release(accountId: string, bookingRef: string, holder: string): Promise<void>;
}
