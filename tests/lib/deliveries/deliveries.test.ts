// Taking a delivery's effect once, over the claims fake (the same contract as
// DynamoDB, tests/lib/store/claims.test.ts).
import { describe, expect, it } from 'vitest';
import { DELIVERY_CLAIMS, DeliveryInProgress, takeEffectOnce } from '../../../lib/deliveries/deliveries.ts';
import { toErrorAnswer } from '../../../lib/http/errors.ts';
import { fakeDeliveries } from '../../support/fakes.ts';

const about = { accountId: 'a', source: 's' };

describe('taking effect once', () => {
  it('answers a copy that arrives while the first is at work at once, with a retryable 409, and a copy after it finished as a duplicate', async () => {
    const deliveries = fakeDeliveries();
    let finish!: () => void;
    let runs = 0;
    const work = () => (runs++, new Promise<{ outcome: string }>((r) => (finish = () => r({ outcome: 'applied' }))));
    const first = takeEffectOnce({ deliveries }, 'k', about, work);
    const copy = takeEffectOnce({ deliveries }, 'k', about, work);
    // Not kept waiting: rejected while the first is still at work.
    await expect(copy).rejects.toBeInstanceOf(DeliveryInProgress);
    finish();
    expect(await first).toEqual({ first: true, result: { outcome: 'applied' } });
    expect(await takeEffectOnce({ deliveries }, 'k', about, work)).toEqual({ first: false, outcome: 'applied' });
    expect(runs).toBe(1);

    const answer = toErrorAnswer(await copy.catch((e: unknown) => e), 'req-1');
    expect(answer).toEqual({
      status: 409,
      headers: { 'retry-after': '1' },
      body: { error: { code: 'delivery_in_progress', message: expect.stringContaining('Retry-After') }, requestId: 'req-1' },
      serverFault: false,
    });
  });

  it('records what was done, the provider, and the account: named up front, or found by the work', async () => {
    const deliveries = fakeDeliveries();
    await takeEffectOnce({ deliveries }, 'known', about, async () => ({ outcome: 'queued', detail: 'booking-1' }));
    expect(deliveries.rows.get('known')).toMatchObject({ value: 'queued: booking-1', about: { source: 's', account_id: 'a', received_at: expect.any(String) } });
    const once = await takeEffectOnce({ deliveries }, 'found', { source: 'stripe' }, async () => ({ outcome: 'applied', accountId: 'acct-found' }));
    expect(once).toEqual({ first: true, result: { outcome: 'applied', accountId: 'acct-found' } });
    expect(deliveries.rows.get('found')).toMatchObject({ value: 'applied', about: { source: 'stripe', account_id: 'acct-found' } });
  });

  it('gives the event back when the work fails, so the provider’s retry does it', async () => {
    const deliveries = fakeDeliveries();
    await expect(takeEffectOnce({ deliveries }, 'k', about, () => Promise.reject(new Error('queue unavailable')))).rejects.toThrow('queue unavailable');
    expect(deliveries.rows.size).toBe(0);
    expect(await takeEffectOnce({ deliveries }, 'k', about, async () => ({ outcome: 'queued' }))).toEqual({ first: true, result: { outcome: 'queued' } });
  });

  it('lets a retry take over an event whose first delivery died mid-way, once its lease has run out; the dead one’s late finish changes nothing', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const deliveries = fakeDeliveries({ now: () => now });
    let wakeUp!: () => void;
    const dying = takeEffectOnce({ deliveries }, 'k', about, () => new Promise<{ outcome: string }>((r) => (wakeUp = () => r({ outcome: 'applied late' }))));
    const attempt = () => takeEffectOnce({ deliveries }, 'k', about, async () => ({ outcome: 'applied by the retry' }));
    await expect(attempt()).rejects.toBeInstanceOf(DeliveryInProgress);
    now = new Date(now.getTime() + DELIVERY_CLAIMS.leaseMs + 1);
    expect(await attempt()).toEqual({ first: true, result: { outcome: 'applied by the retry' } });
    wakeUp();
    await dying;
    expect(await attempt()).toEqual({ first: false, outcome: 'applied by the retry' });
  });
});
