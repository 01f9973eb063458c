import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/errors.ts';
import { bookingProviderOfBody, parseBookingEvent, readJson } from '../../../lib/webhooks/booking-events.ts';

const fixture = (name: string) => JSON.parse(readFileSync(`tests/fixtures/webhooks/${name}.json`, 'utf8'));
const calendlyCreated = fixture('calendly-invitee-created');
const calcomCreated = fixture('calcom-booking-created');

const refused = (body: unknown, provider?: 'calendly' | 'calcom') => {
  try {
    parseBookingEvent(body, provider);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return error as InvalidInput;
  }
  throw new Error('expected a refusal');
};

describe('reading Calendly events', () => {
  it('reads invitee.created: who, what, when, where, with whom', () => {
    expect(bookingProviderOfBody(calendlyCreated)).toBe('calendly');
    expect(parseBookingEvent(calendlyCreated)).toEqual({
      handled: true,
      event: {
        provider: 'calendly',
        change: 'booked',
        trigger: 'invitee.created',
        bookingId: 'https://api.calendly.com/scheduled_events/EV1/invitees/INV1',
        title: 'Kick-off call',
        startTime: '2026-03-10T09:00:00.000Z',
        endTime: '2026-03-10T09:30:00.000Z',
        timezone: 'Europe/Berlin',
        invitee: { name: 'Ann Lee', email: 'ann.lee@example.com' },
        organizer: { name: 'Sam Agent', email: 'sam@agency.example' },
        location: 'https://zoom.example/j/1',
        occurredAt: '2026-03-02T09:15:00.000Z',
        eventId: 'invitee.created|https://api.calendly.com/scheduled_events/EV1/invitees/INV1',
      },
    });
  });

  it('reads a reschedule as the old invitee cancelled (pointing at the new one) and the new one created (pointing back)', () => {
    const p = calendlyCreated.payload;
    const cancelled = parseBookingEvent({
      ...calendlyCreated,
      event: 'invitee.canceled',
      payload: { ...p, status: 'canceled', rescheduled: true, new_invitee: 'https://api.calendly.com/scheduled_events/EV2/invitees/INV2', cancellation: { canceled_by: 'Ann Lee', reason: 'Clash', canceler_type: 'invitee' } },
    });
    expect(cancelled).toMatchObject({
      handled: true,
      event: { change: 'cancelled', nextBookingId: 'https://api.calendly.com/scheduled_events/EV2/invitees/INV2', cancellation: { reason: 'Clash', by: 'Ann Lee' }, eventId: `invitee.canceled|${p.uri}` },
    });
    const moved = parseBookingEvent({ ...calendlyCreated, payload: { ...p, uri: 'https://api.calendly.com/scheduled_events/EV2/invitees/INV2', old_invitee: p.uri } });
    expect(moved).toMatchObject({ handled: true, event: { change: 'rescheduled', previousBookingId: p.uri, bookingId: 'https://api.calendly.com/scheduled_events/EV2/invitees/INV2' } });
  });

  it('reads a plain cancel as cancelled with no successor', () => {
    const parsed = parseBookingEvent({ ...calendlyCreated, event: 'invitee.canceled', payload: { ...calendlyCreated.payload, cancellation: { reason: 'No longer needed' } } });
    expect(parsed).toMatchObject({ handled: true, event: { change: 'cancelled', cancellation: { reason: 'No longer needed' } } });
    expect(parsed.handled && parsed.event.nextBookingId).toBeUndefined();
  });

  it('ignores other event types and refuses unreadable bodies', () => {
    expect(parseBookingEvent({ event: 'routing_form_submission.created', payload: {} })).toEqual({ handled: false, type: 'routing_form_submission.created' });
    expect(refused({ event: 'invitee.created', payload: {} }).details).toEqual([
      { path: '/payload/uri', message: 'is required' },
      { path: '/payload/scheduled_event', message: 'is required' },
    ]);
    expect(refused({ triggerEvent: 'BOOKING_CREATED' }, 'calendly').details).toEqual([{ path: '/event', message: 'is required' }]);
  });
});

describe('reading Cal.com events', () => {
  it('reads BOOKING_CREATED with the first attendee as the invitee, in their zone', () => {
    expect(bookingProviderOfBody(calcomCreated)).toBe('calcom');
    expect(parseBookingEvent(calcomCreated)).toEqual({
      handled: true,
      event: {
        provider: 'calcom',
        change: 'booked',
        trigger: 'BOOKING_CREATED',
        bookingId: 'bFJeNb2uX8ANpT3JL5EfXw',
        title: 'Kick-off call between Sam Agent and Bea Cruz',
        startTime: '2026-03-10T14:00:00.000Z',
        endTime: '2026-03-10T14:45:00.000Z',
        timezone: 'America/New_York',
        invitee: { name: 'Bea Cruz', email: 'bea@example.org' },
        organizer: { name: 'Sam Agent', email: 'sam@agency.example' },
        location: 'integrations:daily',
        occurredAt: '2026-03-02T09:15:00.000Z',
        eventId: 'BOOKING_CREATED|bFJeNb2uX8ANpT3JL5EfXw',
      },
    });
  });

  it('reads BOOKING_RESCHEDULED as replacing rescheduleUid, and BOOKING_CANCELLED with its reason', () => {
    const moved = parseBookingEvent({ ...calcomCreated, triggerEvent: 'BOOKING_RESCHEDULED', payload: { ...calcomCreated.payload, uid: 'newUid', rescheduleUid: 'bFJeNb2uX8ANpT3JL5EfXw' } });
    expect(moved).toMatchObject({ handled: true, event: { change: 'rescheduled', bookingId: 'newUid', previousBookingId: 'bFJeNb2uX8ANpT3JL5EfXw', eventId: 'BOOKING_RESCHEDULED|newUid' } });
    const cancelled = parseBookingEvent({ ...calcomCreated, triggerEvent: 'BOOKING_CANCELLED', payload: { ...calcomCreated.payload, cancellationReason: 'Ill' } });
    expect(cancelled).toMatchObject({ handled: true, event: { change: 'cancelled', cancellation: { reason: 'Ill' }, eventId: 'BOOKING_CANCELLED|bFJeNb2uX8ANpT3JL5EfXw' } });
  });

  it('ignores PING and other triggers, and refuses a booking without its uid', () => {
    expect(parseBookingEvent({ triggerEvent: 'PING', payload: {} })).toEqual({ handled: false, type: 'PING' });
    // Nor is a property every object has a trigger, for either provider.
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(parseBookingEvent({ ...calcomCreated, triggerEvent: name }), name).toEqual({ handled: false, type: name });
      expect(parseBookingEvent({ ...calendlyCreated, event: name }, 'calendly'), name).toEqual({ handled: false, type: name });
    }
    expect(refused({ triggerEvent: 'BOOKING_CREATED', payload: { title: 'x' } }).details).toEqual([{ path: '/payload/uid', message: 'is required' }]);
  });
});

describe('bodies of neither provider', () => {
  it('are refused, whether not JSON (e.g. a form-encoded template) or of another shape', () => {
    expect(() => readJson('triggerEvent=BOOKING_CREATED&uid=1')).toThrow(InvalidInput);
    expect(refused({ hello: 'world' }).code).toBe('invalid_payload');
  });
});
