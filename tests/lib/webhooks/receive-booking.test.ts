// The booking webhook's use case against in-memory ports.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { rawBodyReader } from '../../../lib/http/endpoint.ts';
import { bookingJobName, type BookingJob } from '../../../lib/webhooks/booking-queue.ts';
import { receiveBookingDelivery, type BookingDeps } from '../../../lib/webhooks/receive-booking.ts';
import { webhookRoutes } from '../../../lib/webhooks/routes.ts';
import { fakeAccounts, fakeQueue } from '../../support/fakes.ts';
import { fakeWebhookIntegrations } from './fakes.ts';

/** The route's own reader: the body checked against its schema (lib/webhooks/webhook-bodies.ts), as the endpoint does. */
const readBody = rawBodyReader(webhookRoutes.bookingWebhook)!;
const NOW = new Date('2026-03-02T09:15:30Z');
const calendly = readFileSync('tests/fixtures/webhooks/calendly-invitee-created.json', 'utf8');
const calcom = readFileSync('tests/fixtures/webhooks/calcom-booking-created.json', 'utf8');

let integrations: ReturnType<typeof fakeWebhookIntegrations>;
let queue: ReturnType<typeof fakeQueue<BookingJob>>;
let deps: BookingDeps;
let accounts: ReturnType<typeof fakeAccounts>;
let secret: string;

beforeEach(async () => {
  integrations = fakeWebhookIntegrations();
  queue = fakeQueue<BookingJob>();
  secret = (await integrations.ensure('acct')).secret;
  accounts = fakeAccounts();
  await accounts.store.saveAccountDetails('acct', { company_name: 'Acme' });
  deps = { integrations, accounts: accounts.store, queue, now: () => NOW };
});

const deliver = (rawBody: string, headers: Record<string, string> = {}, path = secret) =>
  receiveBookingDelivery(deps, { secret: path, headers, rawBody, readBody: () => readBody(rawBody) });
const calendlySigned = (rawBody: string, key: string, t = Math.floor(NOW.getTime() / 1000)) => ({
  'calendly-webhook-signature': `t=${t},v1=${createHmac('sha256', key).update(`${t}.${rawBody}`).digest('hex')}`,
});
const calcomSigned = (rawBody: string, key: string) => ({ 'x-cal-signature-256': createHmac('sha256', key).update(rawBody).digest('hex') });

describe('a booking delivery', () => {
  it("answers 410 account_closed once the secret's account is closing or closed, queueing nothing; reopened, it takes deliveries again", async () => {
    for (const status of ['offboarding', 'closed', 'erased'] as const) {
      accounts.accounts.set('acct', { ...accounts.accounts.get('acct')!, status });
      await expect(deliver(calendly)).rejects.toMatchObject({ code: 'account_closed' });
    }
    expect(queue.jobs.size).toBe(0);
    accounts.accounts.set('acct', { ...accounts.accounts.get('acct')!, status: 'provisioning' });
    expect(await deliver(calendly)).toMatchObject({ outcome: 'queued' });
  });

  it('queues one job per event, named after its event key, carrying the booking', async () => {
    expect(await deliver(calendly)).toMatchObject({ outcome: 'queued' });
    const eventKey = 'booking#acct#calendly#invitee.created|https://api.calendly.com/scheduled_events/EV1/invitees/INV1';
    expect([...queue.jobs.entries()]).toEqual([
      [bookingJobName(eventKey), { accountId: 'acct', eventKey, booking: expect.objectContaining({ provider: 'calendly', change: 'booked', title: 'Kick-off call' }) }],
    ]);
    expect(bookingJobName(eventKey)).toMatch(/^booking-[0-9a-f]{48}$/);
    expect(await deliver(calendly)).toEqual({ outcome: 'duplicate' });
    expect(queue.jobs.size).toBe(1);
  });

  it('queues five identical deliveries arriving together once, answering every copy at once, and a retry is a duplicate', async () => {
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => deliver(calcom)));
    expect(outcomes.filter((o) => o.outcome === 'queued')).toEqual([{ outcome: 'queued', detail: expect.any(String) }]);
    expect(outcomes.filter((o) => o.outcome === 'duplicate')).toHaveLength(4);
    expect(queue.jobs.size).toBe(1);
    expect(await deliver(calcom)).toEqual({ outcome: 'duplicate' });
  });

  it('keeps a delivery whose queueing failed for the provider to retry', async () => {
    queue.failNext();
    await expect(deliver(calcom)).rejects.toThrow('unavailable');
    expect(await deliver(calcom)).toMatchObject({ outcome: 'queued' });
    expect(queue.jobs.size).toBe(1);
  });

  it('ignores event types it does not act on, and refuses bodies it cannot read', async () => {
    expect(await deliver(JSON.stringify({ triggerEvent: 'PING', payload: {} }))).toMatchObject({ outcome: 'ignored' });
    await expect(deliver('uid=1&triggerEvent=BOOKING_CREATED')).rejects.toMatchObject({ code: 'malformed_json' });
    await expect(deliver(JSON.stringify({ hello: 1 }))).rejects.toMatchObject({ code: 'invalid_payload' });
    expect(queue.jobs.size).toBe(0);
  });

  it('answers 404 to an unknown, rotated-out, truncated or wrong secret of the same length, queueing nothing', async () => {
    const old = secret;
    await integrations.rotate('acct');
    for (const path of [old, `${old.slice(0, -1)}${old.endsWith('A') ? 'B' : 'A'}`, old.slice(0, 42), undefined]) {
      await expect(deliver(calendly, {}, path as string)).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(queue.jobs.size).toBe(0);
  });
});

describe('booking signatures', () => {
  it('takes unsigned deliveries (and Cal.com\'s "no-secret-provided") while no booking key is configured', async () => {
    expect(await deliver(calcom, { 'x-cal-signature-256': 'no-secret-provided' })).toMatchObject({ outcome: 'queued' });
  });

  it('once a key is configured, takes only deliveries signed by a configured provider', async () => {
    await integrations.setSigningKeys('acct', { calendly: 'calendly-key' });
    const refusals = [
      deliver(calendly),
      deliver(calendly, calendlySigned(calendly, 'another-key')),
      deliver(calendly, calendlySigned(calendly, 'calendly-key', Math.floor(NOW.getTime() / 1000) - 600)),
      deliver(calcom, calcomSigned(calcom, 'calendly-key')),
      deliver(calcom),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toMatchObject({ code: 'invalid_signature' });
    expect(queue.jobs.size).toBe(0);
    expect(await deliver(calendly, calendlySigned(calendly, 'calendly-key'))).toMatchObject({ outcome: 'queued' });

    await integrations.setSigningKeys('acct', { calcom: 'calcom-key' });
    await expect(deliver(calcom, calcomSigned(calcom, 'wrong'))).rejects.toMatchObject({ code: 'invalid_signature' });
    expect(await deliver(calcom, calcomSigned(calcom, 'calcom-key'))).toMatchObject({ outcome: 'queued' });
    expect(queue.jobs.size).toBe(2);
  });
});

describe('booking bodies', () => {
  it('refuses a signed body of the wrong shape with 400 invalid_payload, saying where', async () => {
    await integrations.setSigningKeys('acct', { calendly: 'calendly-key', calcom: 'calcom-key' });
    const calendlyNoUri = JSON.stringify({ ...JSON.parse(calendly), payload: { ...JSON.parse(calendly).payload, uri: undefined } });
    const calcomNoUid = JSON.stringify({ triggerEvent: 'BOOKING_CANCELLED', payload: { title: 'Call', attendees: 'jo' } });
    await expect(deliver(calendlyNoUri, calendlySigned(calendlyNoUri, 'calendly-key'))).rejects.toMatchObject({
      code: 'invalid_payload',
      details: expect.arrayContaining([{ path: '/payload/uri', message: 'is required' }]),
    });
    await expect(deliver(calcomNoUid, calcomSigned(calcomNoUid, 'calcom-key'))).rejects.toMatchObject({
      code: 'invalid_payload',
      details: expect.arrayContaining([
        { path: '/payload/uid', message: 'is required' },
        { path: '/payload/attendees', message: 'must be array' },
      ]),
    });
    expect(queue.jobs.size).toBe(0);
  });

  it('checks the signature before the body: an unsigned body of any shape gets the same invalid_signature', async () => {
    await integrations.setSigningKeys('acct', { calcom: 'calcom-key' });
    for (const delivery of ['uid=1', JSON.stringify({ hello: 1 }), JSON.stringify({ triggerEvent: 'BOOKING_CREATED', payload: {} }), calcom]) {
      await expect(deliver(delivery)).rejects.toMatchObject({ code: 'invalid_signature' });
      await expect(deliver(delivery, calcomSigned(delivery, 'wrong'))).rejects.toMatchObject({ code: 'invalid_signature' });
    }
  });

  it('accepts the fields the providers add', async () => {
    const calendlyMore = JSON.stringify({ ...JSON.parse(calendly), webhook_version: 3, payload: { ...JSON.parse(calendly).payload, routing_form_submission: null, new_field: { a: 1 } } });
    const calcomMore = JSON.stringify({ ...JSON.parse(calcom), payload: { ...JSON.parse(calcom).payload, iCalUID: 'x@cal.com', videoCallData: { type: 'daily' } } });
    expect(await deliver(calendlyMore)).toMatchObject({ outcome: 'queued' });
    expect(await deliver(calcomMore)).toMatchObject({ outcome: 'queued' });
    // Event types it does not act on are acknowledged whatever their payload.
    expect(await deliver(JSON.stringify({ event: 'routing_form_submission.created', payload: { questions_and_answers: 'n/a', tracking: 1 } }))).toMatchObject({ outcome: 'ignored' });
    expect(await deliver(JSON.stringify({ triggerEvent: 'MEETING_ENDED', payload: { attendees: null } }))).toMatchObject({ outcome: 'ignored' });
  });
});
