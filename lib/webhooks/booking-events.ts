// Calendly's and Cal.com's webhook bodies (vendor-contracts §8), read into one
// shape that the booking workflow acts on. Unreadable bodies (including
// Cal.com's form-encoded custom templates) are refused with 400; well-formed
// events of types we do not act on are acknowledged and ignored.
import { InvalidInput, type ErrorDetail } from '../errors.ts';
import { ianaZone } from '../time-zones.ts';

export type BookingProvider = 'calendly' | 'calcom';
export type BookingChange = 'booked' | 'rescheduled' | 'cancelled';

export interface Person {
  name?: string;
  email?: string;
}

export interface BookingEvent {
  provider: BookingProvider;
  change: BookingChange;
  /** The provider's own event type, e.g. invitee.created or BOOKING_CREATED. */
  trigger: string;
  /** The booking across its events: Calendly's invitee URI, Cal.com's uid. */
  bookingId: string;
  /** The booking this one replaces (the new half of a reschedule). */
  previousBookingId?: string;
  /** The booking that replaces this one (Calendly's cancelled half of a reschedule). */
  nextBookingId?: string;
  title: string;
  /** ISO 8601. */
  startTime?: string;
  endTime?: string;
  /** The invitee's IANA zone, for showing the time as they booked it. */
  timezone?: string;
  invitee: Person;
  organizer?: Person;
  location?: string;
  cancellation?: { reason?: string; by?: string };
  /** When the provider says it happened (ISO 8601): orders events that arrive out of order. */
  occurredAt: string;
  /** This event of this booking: Calendly's event + invitee URI, Cal.com's triggerEvent + uid. */
  eventId: string;
}

export type ParsedBooking = { handled: true; event: BookingEvent } | { handled: false; type: string };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max = 300) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : undefined);
const email = (v: unknown) => {
  const s = text(v, 254);
  return s && /^[^\s@]+@[^\s@]+$/.test(s) ? s.toLowerCase() : undefined;
};
const instant = (v: unknown) => {
  const s = text(v, 40);
  return s && !Number.isNaN(Date.parse(s)) ? new Date(s).toISOString() : undefined;
};
const zone = (v: unknown) => {
  const s = text(v, 64);
  return s ? ianaZone(s) : undefined;
};
const person = (name: unknown, mail: unknown): Person => ({ ...(text(name, 200) ? { name: text(name, 200) } : {}), ...(email(mail) ? { email: email(mail) } : {}) });

const malformed = (provider: string, details: ErrorDetail[]) =>
  new InvalidInput(`The ${provider} event cannot be read`, details, 'invalid_payload');

/** The provider a body is shaped like, when no signature header said so. */
export function bookingProviderOfBody(body: unknown): BookingProvider | undefined {
  if (!isObject(body)) return undefined;
  if (typeof body.triggerEvent === 'string') return 'calcom';
  if (typeof body.event === 'string' && isObject(body.payload)) return 'calendly';
  return undefined;
}

export function readJson(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    throw new InvalidInput('The body is not JSON (form-encoded custom payloads are not supported)', undefined, 'malformed_json');
  }
}

/** Reads a booking delivery of the given provider (or whichever the body is shaped like). */
export function parseBookingEvent(body: unknown, provider = bookingProviderOfBody(body)): ParsedBooking {
  if (provider === 'calendly') return calendly(body);
  if (provider === 'calcom') return calcom(body);
  throw new InvalidInput('The body is neither a Calendly nor a Cal.com webhook event', undefined, 'invalid_payload');
}

/** The event types acted on. Maps: a sender's `constructor` or `__proto__` is no type (an object's would be). */
const CALENDLY: ReadonlyMap<string, BookingChange> = new Map([
  ['invitee.created', 'booked'],
  ['invitee.canceled', 'cancelled'],
]);

function calendly(body: unknown): ParsedBooking {
  if (!isObject(body) || typeof body.event !== 'string') throw malformed('Calendly', [{ path: '/event', message: 'is required' }]);
  if (!CALENDLY.has(body.event)) return { handled: false, type: body.event.slice(0, 100) };
  const p = isObject(body.payload) ? body.payload : undefined;
  const scheduled = p && isObject(p.scheduled_event) ? p.scheduled_event : undefined;
  const problems: ErrorDetail[] = [];
  const uri = text(p?.uri, 500);
  if (!uri) problems.push({ path: '/payload/uri', message: 'is required' });
  if (!scheduled) problems.push({ path: '/payload/scheduled_event', message: 'is required' });
  if (problems.length) throw malformed('Calendly', problems);

  const cancelled = body.event === 'invitee.canceled';
  const previous = !cancelled ? text(p!.old_invitee, 500) : undefined;
  const next = cancelled && p!.rescheduled === true ? text(p!.new_invitee, 500) : undefined;
  const host = Array.isArray(scheduled!.event_memberships) && isObject(scheduled!.event_memberships[0]) ? scheduled!.event_memberships[0] : undefined;
  const cancellation = isObject(p!.cancellation) ? p!.cancellation : undefined;
  return {
    handled: true,
    event: {
      provider: 'calendly',
      change: cancelled ? 'cancelled' : previous ? 'rescheduled' : 'booked',
      trigger: body.event,
      bookingId: uri!,
      ...(previous ? { previousBookingId: previous } : {}),
      ...(next ? { nextBookingId: next } : {}),
      title: text(scheduled!.name, 200) ?? 'Meeting',
      ...optional('startTime', instant(scheduled!.start_time)),
      ...optional('endTime', instant(scheduled!.end_time)),
      ...optional('timezone', zone(p!.timezone)),
      invitee: person(p!.name ?? [p!.first_name, p!.last_name].filter((s) => typeof s === 'string').join(' '), p!.email),
      ...(host ? { organizer: person(host.user_name, host.user_email) } : {}),
      ...optional('location', locationOf(scheduled!.location)),
      ...(cancelled && cancellation ? { cancellation: { ...optional('reason', text(cancellation.reason, 500)), ...optional('by', text(cancellation.canceled_by, 200)) } } : {}),
      occurredAt: instant(body.created_at) ?? instant(p!.updated_at) ?? instant(p!.created_at) ?? new Date(0).toISOString(),
      eventId: `${body.event}|${uri}`,
    },
  };
}

const CALCOM: ReadonlyMap<string, BookingChange> = new Map([
  ['BOOKING_CREATED', 'booked'],
  ['BOOKING_RESCHEDULED', 'rescheduled'],
  ['BOOKING_CANCELLED', 'cancelled'],
]);

function calcom(body: unknown): ParsedBooking {
  if (!isObject(body) || typeof body.triggerEvent !== 'string') throw malformed('Cal.com', [{ path: '/triggerEvent', message: 'is required' }]);
  const change = CALCOM.get(body.triggerEvent);
  if (!change) return { handled: false, type: body.triggerEvent.slice(0, 100) };
  const p = isObject(body.payload) ? body.payload : undefined;
  const uid = text(p?.uid, 200);
  if (!uid) throw malformed('Cal.com', [{ path: '/payload/uid', message: 'is required' }]);
  const attendee = Array.isArray(p!.attendees) && isObject(p!.attendees[0]) ? p!.attendees[0] : undefined;
  const organizer = isObject(p!.organizer) ? p!.organizer : undefined;
  // On a reschedule Cal.com makes a new booking; rescheduleUid names the one it replaces [U].
  const previous = change === 'rescheduled' ? text(p!.rescheduleUid, 200) : undefined;
  return {
    handled: true,
    event: {
      provider: 'calcom',
      change,
      trigger: body.triggerEvent,
      bookingId: uid,
      ...(previous && previous !== uid ? { previousBookingId: previous } : {}),
      title: text(p!.title, 200) ?? text(p!.type, 200) ?? 'Meeting',
      ...optional('startTime', instant(p!.startTime)),
      ...optional('endTime', instant(p!.endTime)),
      ...optional('timezone', zone(attendee?.timeZone) ?? zone(organizer?.timeZone)),
      invitee: attendee ? person(attendee.name, attendee.email) : {},
      ...(organizer ? { organizer: person(organizer.name, organizer.email) } : {}),
      ...optional('location', locationOf(p!.location)),
      ...(change === 'cancelled' ? { cancellation: { ...optional('reason', text(p!.cancellationReason, 500)) } } : {}),
      occurredAt: instant(body.createdAt) ?? new Date(0).toISOString(),
      eventId: `${body.triggerEvent}|${uid}`,
    },
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Calendly sends { type, location | join_url }; Cal.com a string (an address, a URL or "integrations:zoom"). */
function locationOf(value: unknown): string | undefined {
  if (typeof value === 'string') return text(value, 300);
  if (isObject(value)) return text(value.join_url, 300) ?? text(value.location, 300) ?? text(value.type, 100);
  return undefined;
}
