// The booking workflow's two steps against in-memory ports.
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskPatch } from '../../../lib/integrations/task-tool.ts';
import { parseBookingEvent, type BookingEvent } from '../../../lib/webhooks/booking-events.ts';
import { bookingRef, newTaskFor } from '../../../lib/webhooks/booking-text.ts';
import { postBookingAlert } from '../../../lib/webhooks/steps/post-booking-alert.ts';
import { BookingTaskBusy, OnboardingListMissing, recordBookingTask, type BookingStepInput } from '../../../lib/webhooks/steps/record-booking-task.ts';
import { fakeAccounts, fakeBookingTasks, fakeChat, fakeLedger, fakeTaskTool } from '../../support/fakes.ts';

const calendly = JSON.parse(readFileSync('tests/fixtures/webhooks/calendly-invitee-created.json', 'utf8'));
const calcom = JSON.parse(readFileSync('tests/fixtures/webhooks/calcom-booking-created.json', 'utf8'));
const OLD = calendly.payload.uri as string;
const NEW = 'https://api.calendly.com/scheduled_events/EV2/invitees/INV2';

const read = (body: unknown): BookingEvent => {
  const parsed = parseBookingEvent(body);
  if (!parsed.handled) throw new Error('not handled');
  return parsed.event;
};
const calendlyEvent = (event: string, payload: Record<string, unknown>, createdAt: string) =>
  read({ ...calendly, event, created_at: createdAt, payload: { ...calendly.payload, ...payload } });
const job = (booking: BookingEvent, execution = `exec-${crypto.randomUUID()}`): BookingStepInput => ({
  accountId: 'acct',
  eventKey: `booking#acct#${booking.provider}#${booking.eventId}`,
  booking,
  execution,
});

let taskTool: ReturnType<typeof fakeTaskTool>;
let ledger: ReturnType<typeof fakeLedger>;
let bookingTasks: ReturnType<typeof fakeBookingTasks>;
let patches: { taskId: string; patch: TaskPatch }[];
let deps: Parameters<typeof recordBookingTask>[0];

beforeEach(async () => {
  taskTool = fakeTaskTool();
  ledger = fakeLedger();
  bookingTasks = fakeBookingTasks();
  patches = [];
  const update = taskTool.updateTask.bind(taskTool);
  taskTool.updateTask = async (taskId, patch) => {
    patches.push({ taskId, patch });
    return update(taskId, patch);
  };
  await ledger.put('acct', 'clickup#list#onboarding', { id: 'list-onboarding' });
  deps = { taskTool, ledger, bookingTasks };
});

/** Booking leases still held: none once a step has ended, whichever way. */
const leasesHeld = () => [...bookingTasks.claims.rows.values()].filter((row) => row.holder !== undefined);
const tasksInList = () => [...taskTool.tasks.values()].filter((t) => t.listId === 'list-onboarding');

describe('the booking task', () => {
  it('is created once in the onboarding list, with who, what and when, and remembered per booking', async () => {
    const booked = read(calendly);
    const input = job(booked);
    expect(await recordBookingTask(deps, input)).toMatchObject({ step: 'task', outcome: 'created' });
    const [task] = tasksInList();
    expect(task!.name).toMatch(/^Call with Ann Lee: Kick-off call \[[0-9a-f]{6}\]$/);
    expect(newTaskFor(booked)).toMatchObject({
      dueDate: Date.parse('2026-03-10T09:00:00Z'),
      tags: ['booking'],
      description: expect.stringContaining('- When: Tue 10 Mar 2026, 10:00–10:30 (Europe/Berlin)'),
    });
    expect(newTaskFor(booked).description.replaceAll('\u200b', '')).toContain('**Ann Lee** (ann.lee@example.com) booked **Kick-off call**.');
    expect(await bookingTasks.get('acct', bookingRef('calendly', OLD))).toMatchObject({ taskId: task!.id, state: 'booked' });
    // A redrive of the same execution finds the task; nothing new is created.
    await recordBookingTask(deps, input);
    expect(tasksInList()).toHaveLength(1);
    expect(leasesHeld()).toEqual([]);
  });

  it('is marked cancelled by a cancel', async () => {
    await recordBookingTask(deps, job(read(calendly)));
    const cancel = calendlyEvent('invitee.canceled', { cancellation: { reason: 'Clash', canceled_by: 'Ann Lee' } }, '2026-03-03T08:00:00Z');
    expect(await recordBookingTask(deps, job(cancel))).toMatchObject({ outcome: 'updated' });
    const [task] = tasksInList();
    expect(task!.name).toMatch(/^Cancelled: Call with Ann Lee: Kick-off call/);
    expect(patches[0]!.patch.description).toContain('- Reason: Clash');
    expect(await bookingTasks.get('acct', bookingRef('calendly', OLD))).toMatchObject({ state: 'cancelled', eventAt: '2026-03-03T08:00:00.000Z' });
  });

  it('follows a Calendly reschedule: the cancel half changes nothing, the new invitee moves the same task', async () => {
    await recordBookingTask(deps, job(read(calendly)));
    const cancelHalf = calendlyEvent('invitee.canceled', { rescheduled: true, new_invitee: NEW }, '2026-03-04T08:00:00Z');
    expect(await recordBookingTask(deps, job(cancelHalf))).toMatchObject({ outcome: 'unchanged' });
    const moved = read({
      ...calendly,
      created_at: '2026-03-04T08:00:00Z',
      payload: { ...calendly.payload, uri: NEW, old_invitee: OLD, scheduled_event: { ...calendly.payload.scheduled_event, start_time: '2026-03-12T09:00:00Z', end_time: '2026-03-12T09:30:00Z' } },
    });
    expect(await recordBookingTask(deps, job(moved))).toMatchObject({ outcome: 'updated' });
    expect(tasksInList()).toHaveLength(1);
    expect(patches.at(-1)!.patch).toMatchObject({ dueDate: Date.parse('2026-03-12T09:00:00Z') });
    expect(patches.at(-1)!.patch.description).toContain('- Rescheduled from: Tue 10 Mar 2026, 10:00 (Europe/Berlin)');
    // The new invitee is the same task from now on: cancelling it marks that task.
    const cancelNew = read({ ...calendly, event: 'invitee.canceled', created_at: '2026-03-05T08:00:00Z', payload: { ...calendly.payload, uri: NEW } });
    await recordBookingTask(deps, job(cancelNew));
    expect(tasksInList()).toHaveLength(1);
    expect(tasksInList()[0]!.name).toMatch(/^Cancelled: /);
  });

  it('follows a Cal.com reschedule through rescheduleUid', async () => {
    await recordBookingTask(deps, job(read(calcom)));
    const moved = read({ ...calcom, triggerEvent: 'BOOKING_RESCHEDULED', createdAt: '2026-03-04T00:00:00Z', payload: { ...calcom.payload, uid: 'newUid', rescheduleUid: calcom.payload.uid } });
    expect(await recordBookingTask(deps, job(moved))).toMatchObject({ outcome: 'updated' });
    expect(tasksInList()).toHaveLength(1);
    expect((await bookingTasks.get('acct', bookingRef('calcom', 'newUid')))?.taskId).toBe(tasksInList()[0]!.id);
  });

  it('keeps the newer state when events arrive out of order: a cancel first leaves a cancelled task the older booking event does not revive', async () => {
    const cancel = { ...read({ ...calcom, triggerEvent: 'BOOKING_CANCELLED', createdAt: '2026-03-05T00:00:00Z' }) };
    expect(await recordBookingTask(deps, job(cancel))).toMatchObject({ outcome: 'created' });
    expect(await recordBookingTask(deps, job(read(calcom)))).toMatchObject({ outcome: 'unchanged' });
    expect(tasksInList()).toHaveLength(1);
    expect(tasksInList()[0]!.name).toMatch(/^Cancelled: /);
  });

  it('adopts the task a crashed attempt created but did not record', async () => {
    const booked = read(calcom);
    await taskTool.ensureTasks('list-onboarding', [newTaskFor(booked)]);
    await recordBookingTask(deps, job(booked));
    expect(tasksInList()).toHaveLength(1);
  });

  it('waits (a retried error) while the account has no onboarding list, or another event of the booking holds it', async () => {
    const input = job(read(calcom));
    ledger.claims.rows.delete('acct|clickup#list#onboarding');
    await expect(recordBookingTask(deps, input)).rejects.toBeInstanceOf(OnboardingListMissing);
    expect(leasesHeld()).toEqual([]);
    await ledger.put('acct', 'clickup#list#onboarding', { id: 'list-onboarding' });
    await bookingTasks.claim('acct', bookingRef('calcom', input.booking.bookingId), 'another-execution');
    await expect(recordBookingTask(deps, input)).rejects.toBeInstanceOf(BookingTaskBusy);
    expect(tasksInList()).toHaveLength(0);
  });

  it('is skipped where ClickUp is not configured', async () => {
    expect(await recordBookingTask({ ...deps, taskTool: null }, job(read(calcom)))).toMatchObject({ outcome: 'skipped' });
  });
});

describe('the booking alert', () => {
  let accounts: ReturnType<typeof fakeAccounts>;
  beforeEach(async () => {
    accounts = fakeAccounts();
    await accounts.store.saveAccountDetails('acct', { company_name: 'Acme' });
  });

  it('posts who booked what and when, once per event', async () => {
    const chat = fakeChat();
    const input = job(read(calcom));
    expect(await postBookingAlert({ chat, ledger, accounts: accounts.store }, input)).toMatchObject({ step: 'alert', outcome: 'posted' });
    await postBookingAlert({ chat, ledger, accounts: accounts.store }, input);
    // The invitee's address is no link in Slack: read without the breaks that keep it so.
    expect(chat.posted[0]!.text).toContain('(bea@\u200bexample.\u200borg)');
    expect(chat.posted.map((m) => m.text.replaceAll('\u200b', ''))).toEqual([
      'New booking for Acme: Bea Cruz (bea@example.org) booked "Kick-off call between Sam Agent and Bea Cruz" for Tue 10 Mar 2026, 10:00–10:45 (America/New_York)',
    ]);
  });

  it('says so on a cancel (with the reason) and a reschedule, and stays quiet for the cancel half of a Calendly reschedule', async () => {
    const chat = fakeChat();
    const post = (b: BookingEvent) => postBookingAlert({ chat, ledger, accounts: accounts.store }, job(b));
    await post(calendlyEvent('invitee.canceled', { cancellation: { reason: 'Clash' } }, '2026-03-03T08:00:00Z'));
    expect(await post(calendlyEvent('invitee.canceled', { rescheduled: true, new_invitee: NEW }, '2026-03-03T09:00:00Z'))).toMatchObject({ outcome: 'skipped' });
    await post(calendlyEvent('invitee.created', { uri: NEW, old_invitee: OLD }, '2026-03-03T09:00:00Z'));
    expect(chat.posted.map((m) => m.text.replaceAll('\u200b', ''))).toEqual([
      'Booking cancelled for Acme: Ann Lee (ann.lee@example.com) cancelled "Kick-off call" for Tue 10 Mar 2026, 10:00–10:30 (Europe/Berlin). Reason: Clash',
      'Booking rescheduled for Acme: Ann Lee (ann.lee@example.com) moved "Kick-off call" to Tue 10 Mar 2026, 10:00–10:30 (Europe/Berlin)',
    ]);
  });

  it('is skipped where Slack is not configured', async () => {
    expect(await postBookingAlert({ chat: null, ledger, accounts: accounts.store }, job(read(calcom)))).toMatchObject({ outcome: 'skipped' });
  });
});
