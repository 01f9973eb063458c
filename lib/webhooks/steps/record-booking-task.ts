// The task-tool step of the booking workflow: one task per booking in the
// account's onboarding list, created by the first event and updated by the
// later ones (a reschedule moves it, a cancel marks it). Idempotent: the
// booking's task is remembered, an event older than the task's last one
// changes nothing, and a retry after a crash between creating and recording
// adopts the task by its name (which carries the booking's short reference).
import type { TaskTool } from '../../integrations/task-tool.ts';
import type { Ledger } from '../../provisioning/ledger.ts';
import type { BookingJob } from '../booking-queue.ts';
import type { BookingTaskRecord, BookingTasks } from '../booking-tasks.ts';
import { bookingRef, newTaskFor, taskPatchFor } from '../booking-text.ts';

export interface BookingStepInput extends BookingJob {
  /** The execution's name: the holder of the booking's lease. */
  execution: string;
}

export interface BookingStepAnswer {
  step: 'task' | 'alert';
  outcome: 'created' | 'updated' | 'unchanged' | 'posted' | 'skipped';
  detail?: string;
}

/** The account has no onboarding list yet (its onboarding has not provisioned ClickUp): the state machine retries for hours. */
export class OnboardingListMissing extends Error {
  override name = 'OnboardingListMissing';
}

/** Another event of the same booking is writing its task: the state machine retries in seconds. */
export class BookingTaskBusy extends Error {
  override name = 'BookingTaskBusy';
}

/**
 * This execution outlived its lease and another event's took the booking
 * over: its task write stands at the vendor, its record does not. The retry
 * reads the other's record and decides again (the task is adopted by name).
 */
const lostLease = (ref: string) => new BookingTaskBusy(`Another event of booking ${ref} took over its task while this one was slow`);

export interface BookingTaskDeps {
  taskTool: TaskTool | null;
  ledger: Ledger;
  bookingTasks: BookingTasks;
}

export const ONBOARDING_LIST = 'clickup#list#onboarding';

export async function recordBookingTask(deps: BookingTaskDeps, input: BookingStepInput): Promise<BookingStepAnswer> {
  const { taskTool, bookingTasks } = deps;
  if (!taskTool) return { step: 'task', outcome: 'skipped', detail: 'ClickUp is not configured in this deployment' };
  const { accountId, booking } = input;
  // Calendly's cancel half of a reschedule: the new booking's event moves the task.
  if (booking.nextBookingId) return { step: 'task', outcome: 'unchanged', detail: 'cancelled by a reschedule; the new booking updates the task' };
  const ref = bookingRef(booking.provider, booking.bookingId);
  if (!(await bookingTasks.claim(accountId, ref, input.execution))) {
    throw new BookingTaskBusy(`Another event of booking ${ref} is updating its task`);
  }
  let saved = false;
  try {
    const known = (await bookingTasks.get(accountId, ref)) ?? (booking.previousBookingId ? await bookingTasks.get(accountId, bookingRef(booking.provider, booking.previousBookingId)) : undefined);
    const state: BookingTaskRecord['state'] = booking.change === 'cancelled' ? 'cancelled' : 'booked';

    if (known) {
      if (booking.occurredAt < known.eventAt) return { step: 'task', outcome: 'unchanged', detail: 'a newer event already wrote this task' };
      await taskTool.updateTask(known.taskId, taskPatchFor(booking, known.startTime !== booking.startTime ? known.startTime : undefined));
      saved = await bookingTasks.save(accountId, ref, input.execution, { ...known, state, eventAt: booking.occurredAt, ...(booking.startTime ? { startTime: booking.startTime } : {}) });
      if (!saved) throw lostLease(ref);
      return { step: 'task', outcome: 'updated', detail: known.taskId };
    }

    const list = await deps.ledger.get<{ id: string }>(accountId, ONBOARDING_LIST);
    if (!list) throw new OnboardingListMissing(`Account ${accountId} has no onboarding list in ClickUp yet`);
    // A first event that is a cancel still leaves a (cancelled) task: the booking happened.
    const [task] = await taskTool.ensureTasks(list.id, [newTaskFor(booking)]);
    saved = await bookingTasks.save(accountId, ref, input.execution, {
      taskId: task!.id,
      ...(task!.url ? { url: task!.url } : {}),
      state,
      eventAt: booking.occurredAt,
      ...(booking.startTime ? { startTime: booking.startTime } : {}),
    });
    if (!saved) throw lostLease(ref);
    return { step: 'task', outcome: 'created', detail: task!.id };
  } finally {
    if (!saved) await bookingTasks.release(accountId, ref, input.execution);
  }
}
