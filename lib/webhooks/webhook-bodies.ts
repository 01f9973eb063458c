// The membership and booking webhook bodies as JSON Schemas (vendor-contracts
// §8, from Memberstack's, Calendly's and Cal.com's published descriptions):
// the route catalog's request bodies, so /openapi.json documents them and the
// endpoint validates with them. They require only what this service reads,
// and only for the event types it acts on; every object stays open
// (additionalProperties allowed) because the providers add fields over time,
// and an event type we do not act on is acknowledged whatever its payload.
// The body is read after the signature check (receive-membership.ts,
// receive-booking.ts): an unsigned body never learns more than a signed one.

const text = { type: 'string' } as const;
/** Calendly and Cal.com send null for an absent optional value. */
const textOrNull = { type: ['string', 'null'] } as const;
const openObject = { type: 'object' } as const;

/** If `key` names one of `values`, the body must also satisfy `then`. */
const when = <const T>(key: string, values: readonly string[], then: T) =>
  ({ if: { type: 'object', required: [key], properties: { [key]: { enum: values } } }, then }) as const;

// ---- Memberstack (delivered through Svix) ----

const MEMBER_EVENTS = ['member.created', 'member.updated'] as const;
const PLAN_EVENTS = [
  'member.plan.created',
  'member.plan.updated',
  'member.plan.canceled',
  'member.planConnection.created',
  'member.planConnection.updated',
  'member.planConnection.canceled',
] as const;

const planConnection = {
  type: 'object',
  description: 'A plan connection: con_… id, the plan, and where it stands',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200, examples: ['con_clxyz123'] },
    planId: { type: 'string', examples: ['pln_paid-plan-abc'] },
    active: { type: 'boolean' },
    status: { type: 'string', description: 'ACTIVE, TRIALING, PAST_DUE, CANCELED, …' },
    type: { type: 'string', description: 'FREE, SUBSCRIPTION or ONETIME' },
  },
} as const;

const memberPayload = {
  type: 'object',
  description: 'The member (mem_… id, e-mail, custom fields, plan connections); plan events carry the id and the plan connection',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200, examples: ['mem_clxyz123'] },
    auth: { type: 'object', properties: { email: { type: 'string', maxLength: 254 } } },
    customFields: { type: 'object', description: 'Scalar values are copied onto the member record (at most 50)' },
    metaData: openObject,
    planConnections: { type: 'array', items: planConnection },
    planConnection,
  },
} as const;

/** What a handled event needs in its payload: the member id, plus the e-mail or the plan connection. */
const payloadOf = <const P>(needs: P) =>
  ({
    // Memberstack's documentation also shows the payload under `data`; a body with only `data` is read from there.
    if: { type: 'object', required: ['data'], properties: { data: true, payload: false } },
    then: { type: 'object', properties: { data: { allOf: [memberPayload, needs] } } },
    else: { type: 'object', required: ['payload'], properties: { payload: { allOf: [memberPayload, needs] } } },
  }) as const;

export const membershipEventSchema = {
  type: 'object',
  description:
    'A Memberstack webhook event, delivered through Svix. Acted on: member.created, member.updated, member.deleted, member.plan.created/updated/canceled (also spelled member.planConnection.*); other event types are acknowledged and ignored.',
  required: ['event'],
  properties: {
    event: { type: 'string', minLength: 1, maxLength: 200, examples: ['member.created', 'member.plan.created'] },
    timestamp: { type: 'number', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'When Memberstack fired it (epoch milliseconds): orders events that arrive out of order' },
    payload: { description: 'For the member events: the member (see the conditions below); other events carry what Memberstack gives them' },
    data: { description: 'The payload, as some of Memberstack’s documentation spells it' },
  },
  allOf: [
    when('event', MEMBER_EVENTS, payloadOf({ type: 'object', required: ['id', 'auth'], properties: { id: true, auth: { type: 'object', required: ['email'], properties: { email: true } } } })),
    when('event', ['member.deleted'], payloadOf({ type: 'object', required: ['id'], properties: { id: true } })),
    when(
      'event',
      PLAN_EVENTS,
      payloadOf({ type: 'object', required: ['id', 'planConnection'], properties: { id: true, planConnection: { type: 'object', required: ['id'], properties: { id: true } } } }),
    ),
  ],
  examples: [
    {
      event: 'member.created',
      timestamp: 1767225600000,
      payload: { id: 'mem_clxyz123', auth: { email: 'jo@example.com' }, customFields: { 'first-name': 'Jo' }, metaData: {}, planConnections: [] },
    },
  ],
} as const;

// ---- Calendly ----

const CALENDLY_EVENTS = ['invitee.created', 'invitee.canceled'] as const;

const calendlyScheduledEvent = {
  type: 'object',
  description: 'The meeting: its name, start and end, location and hosts',
  properties: {
    uri: text,
    name: textOrNull,
    start_time: { type: 'string', description: 'ISO 8601' },
    end_time: { type: 'string', description: 'ISO 8601' },
    event_type: textOrNull,
    location: { type: ['object', 'null'], description: '{type, location | join_url, …}' },
    event_memberships: { type: 'array', items: { type: 'object', properties: { user: text, user_email: textOrNull, user_name: textOrNull } } },
  },
} as const;

const calendlyInvitee = {
  type: 'object',
  description: 'The invitee (uri identifies the booking), with the scheduled event',
  properties: {
    uri: { type: 'string', minLength: 1, maxLength: 500 },
    email: textOrNull,
    name: textOrNull,
    first_name: textOrNull,
    last_name: textOrNull,
    status: textOrNull,
    timezone: textOrNull,
    rescheduled: { type: ['boolean', 'null'] },
    old_invitee: { ...textOrNull, description: 'The invitee this one replaces (the new half of a reschedule)' },
    new_invitee: { ...textOrNull, description: 'The invitee that replaces this one (the cancelled half of a reschedule)' },
    cancel_url: textOrNull,
    reschedule_url: textOrNull,
    questions_and_answers: { type: 'array', items: openObject },
    tracking: { type: ['object', 'null'] },
    cancellation: {
      type: ['object', 'null'],
      properties: { canceled_by: textOrNull, reason: textOrNull, canceler_type: textOrNull },
    },
    scheduled_event: calendlyScheduledEvent,
  },
} as const;

const calendlyEventSchema = {
  type: 'object',
  description: 'Calendly: invitee.created and invitee.canceled are acted on (a reschedule is a canceled + created pair)',
  required: ['event'],
  properties: {
    event: { type: 'string', minLength: 1, maxLength: 200, examples: ['invitee.created'] },
    created_at: { type: 'string', description: 'ISO 8601: orders events that arrive out of order' },
    created_by: text,
    payload: { description: 'For invitee events: the invitee (see the conditions below); other events carry what Calendly gives them' },
  },
  allOf: [
    when('event', CALENDLY_EVENTS, {
      type: 'object',
      required: ['payload'],
      properties: { payload: { allOf: [calendlyInvitee, { type: 'object', required: ['uri', 'scheduled_event'], properties: { uri: true, scheduled_event: true } }] } },
    }),
  ],
} as const;

// ---- Cal.com ----

const CALCOM_EVENTS = ['BOOKING_CREATED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED'] as const;

const calcomPerson = { type: 'object', properties: { name: textOrNull, email: textOrNull, timeZone: textOrNull } } as const;

const calcomBooking = {
  type: 'object',
  description: 'The booking (uid identifies it), its attendees and organizer',
  properties: {
    uid: { type: 'string', minLength: 1, maxLength: 200 },
    bookingId: { type: ['number', 'null'] },
    title: textOrNull,
    type: textOrNull,
    startTime: { type: 'string', description: 'ISO 8601' },
    endTime: { type: 'string', description: 'ISO 8601' },
    organizer: calcomPerson,
    attendees: { type: 'array', items: calcomPerson },
    responses: { type: ['object', 'null'] },
    location: { type: ['string', 'null'], description: 'An address, a URL or an integration, e.g. integrations:daily' },
    metadata: { type: ['object', 'null'] },
    status: textOrNull,
    rescheduleUid: { ...textOrNull, description: 'The booking a reschedule replaces' },
    cancellationReason: textOrNull,
  },
} as const;

const calcomEventSchema = {
  type: 'object',
  description: 'Cal.com (default payload): BOOKING_CREATED, BOOKING_RESCHEDULED and BOOKING_CANCELLED are acted on',
  required: ['triggerEvent'],
  properties: {
    triggerEvent: { type: 'string', minLength: 1, maxLength: 200, examples: ['BOOKING_CREATED'] },
    createdAt: { type: 'string', description: 'ISO 8601' },
    payload: { description: 'For booking events: the booking (see the conditions below); other triggers carry what Cal.com gives them' },
  },
  allOf: [
    when('triggerEvent', CALCOM_EVENTS, {
      type: 'object',
      required: ['payload'],
      properties: { payload: { allOf: [calcomBooking, { type: 'object', required: ['uid'], properties: { uid: true } }] } },
    }),
  ],
} as const;

export const bookingEventSchema = {
  type: 'object',
  description:
    'A Calendly or a Cal.com webhook event (a body with triggerEvent is read as Cal.com’s, any other as Calendly’s). Cal.com’s custom payload templates (form-encoded or reshaped) are not accepted.',
  if: { type: 'object', required: ['triggerEvent'], properties: { triggerEvent: true } },
  then: calcomEventSchema,
  else: calendlyEventSchema,
  examples: [
    {
      event: 'invitee.created',
      created_at: '2026-01-05T09:00:00.000000Z',
      payload: {
        uri: 'https://api.calendly.com/scheduled_events/EV1/invitees/INV1',
        email: 'jo@example.com',
        name: 'Jo Example',
        timezone: 'Europe/London',
        old_invitee: null,
        scheduled_event: {
          uri: 'https://api.calendly.com/scheduled_events/EV1',
          name: 'Kick-off call',
          start_time: '2026-01-12T10:00:00.000000Z',
          end_time: '2026-01-12T10:30:00.000000Z',
        },
      },
    },
    {
      triggerEvent: 'BOOKING_CREATED',
      createdAt: '2026-01-05T09:00:00.000Z',
      payload: {
        uid: 'bk_1a2b3c',
        title: 'Kick-off call',
        startTime: '2026-01-12T10:00:00.000Z',
        endTime: '2026-01-12T10:30:00.000Z',
        attendees: [{ name: 'Jo Example', email: 'jo@example.com', timeZone: 'Europe/London' }],
      },
    },
  ],
} as const;
