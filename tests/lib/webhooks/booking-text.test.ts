import { describe, expect, it } from 'vitest';
import type { BookingEvent } from '../../../lib/webhooks/booking-events.ts';
import { newTaskFor, taskPatchFor, when } from '../../../lib/webhooks/booking-text.ts';

// What an invitee types into a booking form lands in the agency's task tool:
// the task's name (plain text) and its description (markdown, which ClickUp
// renders). None of it may become a link, a heading, a list item or a line of
// its own there.
const HOSTILE = 'Acme [click here](https://evil.example) <b>x</b>\r\n# Urgent: wire money\n- [ ] pay https://evil.example';

const booking = (overrides: Partial<BookingEvent> = {}): BookingEvent => ({
  provider: 'calendly',
  change: 'cancelled',
  trigger: 'invitee.canceled',
  bookingId: 'https://api.calendly.com/scheduled_events/E1/invitees/I1',
  title: HOSTILE,
  startTime: '2026-03-03T09:00:00Z',
  endTime: '2026-03-03T09:30:00Z',
  timezone: 'Europe/Berlin',
  invitee: { name: HOSTILE, email: 'ann@example.com' },
  organizer: { name: HOSTILE },
  location: HOSTILE,
  cancellation: { reason: HOSTILE, by: HOSTILE },
  occurredAt: '2026-03-01T09:00:00Z',
  eventId: 'invitee.canceled#I1',
  ...overrides,
});

describe('a booking in the task tool', () => {
  for (const [what, task] of [
    ['a new task', newTaskFor(booking())],
    ['a task patch', taskPatchFor(booking({ change: 'rescheduled' }), '2026-03-02T09:00:00Z')],
  ] as const) {
    it(`keeps what the invitee wrote as text: ${what}`, () => {
      expect(task.name).not.toMatch(/[\r\n]/);
      const description = task.description ?? '';
      // No markdown link, autolink or HTML from the user: every [, ], (, ), <, > they typed is escaped.
      expect(description).not.toMatch(/(?<!\\)\[[^\]]*(?<!\\)\]\(/);
      expect(description).not.toMatch(/(?<!\\)<[a-z/]/i);
      expect(description).not.toMatch(/https?:\/\//);
      // Every line starts with our own text: the description's lines are ours, not the user's.
      for (const line of description.split('\n')) expect(line).toMatch(/^$|^- (When|Where|With|Reason|Cancelled by|Booked through|Rescheduled)|^\*\*/);
    });
  }
});

describe('when a booking is', () => {
  it.each([
    [{ startTime: '2026-03-03T09:00:00Z', endTime: '2026-03-03T09:30:00Z', timezone: 'Europe/Berlin' }, 'Tue 3 Mar 2026, 10:00–10:30 (Europe/Berlin)'],
    [{ startTime: '2026-09-30T23:45:00Z', endTime: '2026-10-01T00:15:00Z', timezone: 'Asia/Kathmandu' }, 'Thu 1 Oct 2026, 05:30–06:00 (Asia/Kathmandu)'],
    [{ startTime: '2026-09-07T16:00:00Z', timezone: 'America/Los_Angeles' }, 'Mon 7 Sep 2026, 09:00 (America/Los_Angeles)'],
    [{ startTime: '2026-03-29T00:30:00Z', endTime: '2026-03-29T01:30:00Z', timezone: 'Europe/London' }, 'Sun 29 Mar 2026, 00:30–02:30 (Europe/London)'],
    [{ startTime: '2026-03-03T09:00:00Z', timezone: 'Asia/Kolkata' }, 'Tue 3 Mar 2026, 14:30 (Asia/Kolkata)'],
    [{ startTime: '2026-03-03T09:00:00Z' }, 'Tue 3 Mar 2026, 09:00 (UTC)'],
    [{ startTime: '2026-03-03T09:00:00Z', timezone: '+01:00' }, 'Tue 3 Mar 2026, 09:00 (UTC)'],
    [{}, 'an unannounced time'],
  ])('%j: %s', (times, shown) => {
    expect(when(times)).toBe(shown);
  });
});
