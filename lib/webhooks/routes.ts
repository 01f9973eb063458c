import { idParam, route } from '../http/route.ts';
import { bookingEventSchema, membershipEventSchema } from './webhook-bodies.ts';

const delivered = {
  type: 'object',
  required: ['received', 'outcome'],
  properties: {
    received: { const: true },
    outcome: {
      enum: ['applied', 'queued', 'duplicate', 'ignored'],
      description: 'applied or queued: taken; duplicate: this event was taken before; ignored: an event type (or member) this service does not act on',
    },
  },
} as const;

const settings = {
  type: 'object',
  required: ['accountId', 'urls', 'signingKeys', 'createdAt'],
  properties: {
    accountId: { type: 'string' },
    urls: {
      type: 'object',
      required: ['membership', 'booking'],
      properties: {
        membership: { type: 'string', format: 'uri', description: 'Give this to the membership service (Memberstack)' },
        booking: { type: 'string', format: 'uri', description: 'Give this to the booking service (Calendly or Cal.com)' },
      },
    },
    signingKeys: {
      type: 'object',
      description: 'Which signing keys are configured; the keys themselves are never returned',
      properties: { membership: { type: 'boolean' }, calendly: { type: 'boolean' }, calcom: { type: 'boolean' } },
    },
    createdAt: { type: 'string', format: 'date-time' },
    rotatedAt: { type: 'string', format: 'date-time' },
  },
} as const;

const signingKey = { anyOf: [{ type: 'string', minLength: 8, maxLength: 512 }, { type: 'null' }] } as const;

const deliveryResponses = {
  200: { description: 'Taken (applied or queued), a duplicate of an event taken before, or an event type that is ignored', schema: delivered },
  400: {
    description:
      'A bad or missing signature (invalid_signature) when a signing key is configured; then (the body is read only after the signature) a body that is not JSON (malformed_json) or does not match the request schema (invalid_payload, with details)',
    codes: ['invalid_signature', 'malformed_json', 'invalid_payload'],
  },
  404: { description: 'No webhook at this address: an unknown, revoked (rotated) or malformed secret; nothing is written' },
  410: { description: "The secret's account is closing or closed: stop sending (account_closed); nothing is written", codes: ['account_closed'] },
  409: {
    description:
      'A copy of an event another delivery is handling right now (delivery_in_progress, answered at once with Retry-After; a retry once it is done gets 200), or a plan event that arrived before its member (member_not_known_yet): retry later',
    codes: ['delivery_in_progress', 'member_not_known_yet'],
  },
} as const;

const accountAccess = {
  401: { description: 'No valid bearer token' },
  403: { description: 'A member of the account who is not an owner, or the internal API key (it reads no secret)' },
  404: { description: 'No such account, or not one the bearer token belongs to' },
} as const;

export const webhookRoutes = {
  membershipWebhook: route({
    method: 'POST',
    path: '/webhooks/membership/{secret}',
    operationId: 'membershipWebhook',
    lambda: { handler: 'functions/webhooks/membership-webhook.ts' },
    summary: "Memberstack member events, synced into the member records of the secret's account; a new paying member starts its onboarding",
    tag: 'webhooks',
    access: { who: 'path-secret' },
    rawBody: true,
    body: membershipEventSchema,
    responses: {
      ...deliveryResponses,
      503: { description: 'Held while an upgraded stage copies its member records (member_records_copying, with Retry-After): deliver again later', codes: ['member_records_copying'] },
    },
  }),
  bookingWebhook: route({
    method: 'POST',
    path: '/webhooks/booking/{secret}',
    operationId: 'bookingWebhook',
    lambda: { handler: 'functions/webhooks/booking-webhook.ts' },
    summary: "Calendly or Cal.com bookings: a task in the account's onboarding list and a chat alert, done by the booking workflow",
    tag: 'webhooks',
    access: { who: 'path-secret' },
    rawBody: true,
    body: bookingEventSchema,
    responses: deliveryResponses,
  }),
  webhookSettings: route({
    method: 'GET',
    path: '/api/accounts/{accountId}/webhooks',
    params: { type: 'object', required: ['accountId'], properties: { accountId: idParam } },
    operationId: 'webhookSettings',
    lambda: { handler: 'functions/webhooks/webhook-settings.ts' },
    summary: "The account's webhook URLs and which signing keys are set (created on first read)",
    tag: 'webhooks',
    access: { who: 'member', permission: 'manage', account: { path: 'accountId' } },
    responses: { 200: { description: 'The URLs; keep them private', schema: settings }, ...accountAccess },
  }),
  rotateWebhookSecret: route({
    method: 'POST',
    path: '/api/accounts/{accountId}/webhooks/rotate',
    params: { type: 'object', required: ['accountId'], properties: { accountId: idParam } },
    operationId: 'rotateWebhookSecret',
    lambda: { handler: 'functions/webhooks/rotate-webhook-secret.ts' },
    summary: "Replace the account's webhook secret; the old URLs stop working at once",
    tag: 'webhooks',
    access: { who: 'member', permission: 'manage', account: { path: 'accountId' } },
    responses: { 200: { description: 'The new URLs', schema: settings }, ...accountAccess, 409: { description: 'Another rotation is under way' } },
  }),
  setWebhookSigningKeys: route({
    method: 'PUT',
    path: '/api/accounts/{accountId}/webhooks/signing-keys',
    params: { type: 'object', required: ['accountId'], properties: { accountId: idParam } },
    operationId: 'setWebhookSigningKeys',
    lambda: { handler: 'functions/webhooks/set-webhook-signing-keys.ts' },
    summary: "Set (a string) or clear (null) the providers' signing keys; keys not named stay as they are",
    tag: 'webhooks',
    access: { who: 'member', permission: 'manage', account: { path: 'accountId' } },
    body: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        membership: { ...signingKey, description: 'The Svix signing secret of the Memberstack webhook (whsec_...)' },
        calendly: { ...signingKey, description: 'The signing_key of the Calendly webhook subscription' },
        calcom: { ...signingKey, description: 'The secret of the Cal.com webhook' },
      },
    },
    responses: { 200: { description: 'The settings after the change', schema: settings }, 400: { description: 'Not a valid key' }, ...accountAccess },
  }),
};
