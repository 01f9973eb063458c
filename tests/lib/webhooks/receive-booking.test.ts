// The booking webhook's use case against in-memory ports.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { bookingJobName } from '../../../lib/webhooks/booking-queue.ts';
import { DeliveryInProgress, takeEffectOnce } from '../../../lib/deliveries/deliveries.ts';
import { receiveBookingDelivery, type BookingDeps } from '../../../lib/webhooks/receive-booking.ts';
import { fakeBookingQueue, fakeDeliveries, fakeWebhookIntegrations } from './fakes.ts';

const NOW = new Date('2026-03-02T09:15:30Z');
const calendly = readFileSync('tests/fixtures/webhooks/calendly-invitee-created.json', 'utf8');
const calcom = readFileSync('tests/fixtures/webhooks/calcom-booking-created.json', 'utf8');

let deliveries: ReturnType<typeof fakeDeliveries>;
let integrations: ReturnType<typeof fakeWebhookIntegrations>;
let queue: ReturnType<typeof fakeBookingQueue>;
let deps: BookingDeps;
let secret: string;

beforeEach(async () => {
  deliveries = fakeDeliveries();
  integrations = fakeWebhookIntegrations();
  queue = fakeBookingQueue();
  secret = (await integrations.ensure('acct')).secret;
  deps = { integrations, deliveries, queue, now: () => NOW, sleep: () => new Promise((r) => setTimeout(r, 1)) };
});

const deliver = (rawBody: string, headers: Record<string, string> = {}, path = secret) => receiveBookingDelivery(deps, { secret: path, headers, rawBody });
const calendlySigned = (rawBody: string, key: string, t = Math.floor(NOW.getTime() / 1000)) => ({
  'calendly-webhook-signature': `t=${t},v1=${createHmac('sha256', key).update(`${t}.${rawBody}`).digest('hex')}`,
});
const calcomSigned = (rawBody: string, key: string) => ({ 'x-cal-signature-256': createHmac('sha256', key).update(rawBody).digest('hex') });

describe('a booking delivery', () => {
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

  it('queues five identical deliveries arriving together once', async () => {
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => deliver(calcom)));
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'queued']);
    expect(queue.jobs.size).toBe(1);
  });

  it('keeps a delivery whose queueing failed for the provider to retry', async () => {
    queue.failNext = true;
    await expect(deliver(calcom)).rejects.toThrow('unavailable');
    expect(deliveries.rows.size).toBe(0);
    expect(await deliver(calcom)).toMatchObject({ outcome: 'queued' });
    expect(queue.jobs.size).toBe(1);
  });

  it('ignores event types it does not act on, and refuses bodies it cannot read', async () => {
    expect(await deliver(JSON.stringify({ triggerEvent: 'PING', payload: {} }))).toMatchObject({ outcome: 'ignored' });
    await expect(deliver('uid=1&triggerEvent=BOOKING_CREATED')).rejects.toMatchObject({ code: 'malformed_json' });
    await expect(deliver(JSON.stringify({ hello: 1 }))).rejects.toMatchObject({ code: 'invalid_payload' });
    expect(queue.jobs.size).toBe(0);
    expect(deliveries.rows.size).toBe(0);
  });

  it('answers 404 to an unknown, rotated-out, truncated or wrong secret of the same length, queueing nothing', async () => {
    const old = secret;
    await integrations.rotate('acct');
    for (const path of [old, `${old.slice(0, -1)}${old.endsWith('A') ? 'B' : 'A'}`, old.slice(0, 42), undefined]) {
      await expect(deliver(calendly, {}, path as string)).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(queue.jobs.size).toBe(0);
    expect(deliveries.rows.size).toBe(0);
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
    expect(deliveries.rows.size).toBe(0);
    expect(await deliver(calendly, calendlySigned(calendly, 'calendly-key'))).toMatchObject({ outcome: 'queued' });

    await integrations.setSigningKeys('acct', { calcom: 'calcom-key' });
    await expect(deliver(calcom, calcomSigned(calcom, 'wrong'))).rejects.toMatchObject({ code: 'invalid_signature' });
    expect(await deliver(calcom, calcomSigned(calcom, 'calcom-key'))).toMatchObject({ outcome: 'queued' });
    expect(queue.jobs.size).toBe(2);
  });
});

describe('taking effect once', () => {
  it('lets a waiting duplicate read where the event stands instead of claiming it again, and take it over when it is given back', async () => {
    const log = fakeDeliveries();
    const calls = { claim: 0, peek: 0 };
    const counted = {
      ...log,
      claim: (...a: Parameters<typeof log.claim>) => (calls.claim++, log.claim(...a)),
      peek: (...a: Parameters<typeof log.peek>) => (calls.peek++, log.peek(...a)),
    };
    const held = await log.claim('k', { accountId: 'a', source: 's' });
    if (held.state !== 'claimed') throw new Error('not claimed');
    let looks = 0;
    const sleep = async () => {
      // The holder's work fails on the third look: it gives the event back.
      if (++looks === 3) await log.release('k', held.token);
    };
    const duplicate = await takeEffectOnce({ deliveries: counted, sleep }, 'k', { accountId: 'a', source: 's' }, async () => ({ outcome: 'done by the duplicate' }));
    expect(duplicate).toEqual({ first: true, result: { outcome: 'done by the duplicate' } });
    expect(calls).toEqual({ claim: 2, peek: 3 });
  });

  it('lets a duplicate wait for the delivery holding the event, then answer as a duplicate', async () => {
    const log = fakeDeliveries();
    let finish!: () => void;
    const first = takeEffectOnce({ deliveries: log }, 'k', { accountId: 'a', source: 's' }, () => new Promise<{ outcome: string }>((r) => (finish = () => r({ outcome: 'applied' }))));
    const second = takeEffectOnce({ deliveries: log, pollMs: 1, peerWaitMs: 5000 }, 'k', { accountId: 'a', source: 's' }, async () => ({ outcome: 'applied again' }));
    await new Promise((r) => setTimeout(r, 10));
    finish();
    expect(await first).toEqual({ first: true, result: { outcome: 'applied' } });
    expect(await second).toEqual({ first: false, outcome: 'applied' });
  });

  it("records the account the work names, when the claim could not name it", async () => {
    const log = fakeDeliveries();
    const once = await takeEffectOnce({ deliveries: log }, 'k', { source: 's' }, async () => ({ outcome: 'applied', accountId: 'acct-found' }));
    expect(once).toEqual({ first: true, result: { outcome: 'applied', accountId: 'acct-found' } });
    expect(log.rows.get('k')).toMatchObject({ status: 'done', source: 's', outcome: 'applied', accountId: 'acct-found' });
  });

  it('lets a retry take over a claim whose holder died, once its lease has run out', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const log = fakeDeliveries({ now: () => now, leaseMs: 60_000 });
    await log.claim('k', { accountId: 'a', source: 's' });
    const attempt = () => takeEffectOnce({ deliveries: log, peerWaitMs: 0 }, 'k', { accountId: 'a', source: 's' }, async () => ({ outcome: 'applied' }));
    await expect(attempt()).rejects.toBeInstanceOf(DeliveryInProgress);
    now = new Date(now.getTime() + 60_001);
    expect(await attempt()).toEqual({ first: true, result: { outcome: 'applied' } });
    expect(await attempt()).toEqual({ first: false, outcome: 'applied' });
  });

  it('answers 409 (retry later) when the holder is still at work after the wait', async () => {
    const log = fakeDeliveries();
    await log.claim('k', { accountId: 'a', source: 's' });
    const waits: number[] = [];
    const attempt = takeEffectOnce({ deliveries: log, peerWaitMs: 300, sleep: async (ms) => void waits.push(ms) }, 'k', { accountId: 'a', source: 's' }, async () => ({ outcome: 'x' }));
    await expect(attempt).rejects.toBeInstanceOf(DeliveryInProgress);
    await expect(attempt).rejects.toMatchObject({ code: 'delivery_in_progress' });
    // Soon at first, then less often, until the wait is over.
    expect(waits).toEqual([10, 15, 23, 35, 53, 80, 100]);
  });
});
