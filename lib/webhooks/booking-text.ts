// What a booking looks like in the task tool and in the team's chat: who
// booked what, and when, in the zone the invitee booked in.
import { createHash } from 'node:crypto';
import type { NewTask, TaskPatch } from '../integrations/task-tool.ts';
import { chatField, markdownField, oneLine, TEXT_LIMITS } from '../text.ts';
import { ianaZone, wallClock, type WallClock } from '../time-zones.ts';
import type { BookingEvent } from './booking-events.ts';

const PROVIDER_NAME = { calendly: 'Calendly', calcom: 'Cal.com' } as const;

/** The per-account key of a booking: provider and the provider's booking id. */
export const bookingRef = (provider: BookingEvent['provider'], bookingId: string) => `${provider}#${bookingId}`;

/** A short, stable reference shown in the task's name: it keeps names of different bookings apart. */
const shortRef = (booking: BookingEvent) => createHash('sha256').update(bookingRef(booking.provider, booking.bookingId)).digest('hex').slice(0, 6);

const who = (booking: BookingEvent) => booking.invitee.name ?? booking.invitee.email ?? 'Someone';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const twoDigits = (n: number) => String(n).padStart(2, '0');

/** "Tue 3 Mar 2026, 10:00–10:30 (Europe/Berlin)"; UTC when the zone is unknown (lib/time-zones.ts: no ICU formatter at cold start). */
export function when(booking: Pick<BookingEvent, 'startTime' | 'endTime' | 'timezone'>): string {
  if (!booking.startTime) return 'an unannounced time';
  const timeZone = (booking.timezone && ianaZone(booking.timezone)) || 'UTC';
  const start = wallClock(new Date(booking.startTime), timeZone);
  const time = (c: WallClock) => `${twoDigits(c.hour)}:${twoDigits(c.minute)}`;
  const end = booking.endTime ? `–${time(wallClock(new Date(booking.endTime), timeZone))}` : '';
  return `${WEEKDAYS[start.weekday]} ${start.day} ${MONTHS[start.month - 1]} ${start.year}, ${time(start)}${end} (${timeZone})`;
}

/** Plain text (a task's name is not markdown): each field one bounded line (lib/text.ts). */
export function taskName(booking: BookingEvent, cancelled = booking.change === 'cancelled'): string {
  return `${cancelled ? 'Cancelled: ' : ''}Call with ${oneLine(who(booking))}: ${oneLine(booking.title)} [${shortRef(booking)}]`.slice(0, 250);
}

/** Markdown, for the task's description: every field the booking's people filled in is escaped (lib/text.ts). */
export function taskDescription(booking: BookingEvent, previousStart?: string): string {
  const name = markdownField(who(booking), TEXT_LIMITS.email);
  const invitee = booking.invitee.email ? `**${name}** (${markdownField(booking.invitee.email, TEXT_LIMITS.email)})` : `**${name}**`;
  const title = markdownField(booking.title);
  const organizer = booking.organizer?.name ?? booking.organizer?.email;
  const lines = [
    booking.change === 'cancelled' ? `${invitee} cancelled **${title}**.` : `${invitee} booked **${title}**.`,
    '',
    `- When: ${when(booking)}`,
    ...(booking.change === 'rescheduled' && previousStart ? [`- Rescheduled from: ${when({ startTime: previousStart, timezone: booking.timezone })}`] : []),
    ...(booking.change === 'rescheduled' && !previousStart ? ['- Rescheduled'] : []),
    ...(booking.location ? [`- Where: ${markdownField(booking.location, TEXT_LIMITS.line)}`] : []),
    ...(organizer ? [`- With: ${markdownField(organizer, TEXT_LIMITS.email)}`] : []),
    ...(booking.change === 'cancelled' && booking.cancellation?.reason ? [`- Reason: ${markdownField(booking.cancellation.reason, TEXT_LIMITS.line)}`] : []),
    ...(booking.change === 'cancelled' && booking.cancellation?.by ? [`- Cancelled by: ${markdownField(booking.cancellation.by, TEXT_LIMITS.email)}`] : []),
    `- Booked through: ${PROVIDER_NAME[booking.provider]} (${markdownField(booking.bookingId, TEXT_LIMITS.url)})`,
  ];
  return lines.join('\n');
}

export function newTaskFor(booking: BookingEvent): NewTask {
  return {
    name: taskName(booking),
    description: taskDescription(booking),
    tags: ['booking'],
    ...(booking.startTime ? { dueDate: Date.parse(booking.startTime) } : {}),
  };
}

export function taskPatchFor(booking: BookingEvent, previousStart?: string): TaskPatch {
  return {
    name: taskName(booking),
    description: taskDescription(booking, previousStart),
    ...(booking.change !== 'cancelled' && booking.startTime ? { dueDate: Date.parse(booking.startTime) } : {}),
  };
}

/**
 * The team's alert, for Slack's text and mrkdwn alike: every field the
 * booking's people filled in is one escaped line (lib/text.ts), so a name, a
 * title or a reason cannot mention anyone, link anywhere or start a line.
 */
export function alertText(booking: BookingEvent, company: string): string {
  const { name, email } = booking.invitee;
  const person = email && name ? `${chatField(name)} (${chatField(email, TEXT_LIMITS.email)})` : chatField(who(booking), TEXT_LIMITS.email);
  const at = chatField(company);
  const headline = {
    booked: `New booking for ${at}`,
    rescheduled: `Booking rescheduled for ${at}`,
    cancelled: `Booking cancelled for ${at}`,
  }[booking.change];
  const verb = booking.change === 'cancelled' ? 'cancelled' : booking.change === 'rescheduled' ? 'moved' : 'booked';
  const reason = booking.change === 'cancelled' && booking.cancellation?.reason ? `. Reason: ${chatField(booking.cancellation.reason, TEXT_LIMITS.line)}` : '';
  return `${headline}: ${person} ${verb} "${chatField(booking.title, TEXT_LIMITS.line)}" ${booking.change === 'rescheduled' ? 'to' : 'for'} ${chatField(when(booking), TEXT_LIMITS.line)}${reason}`;
}
