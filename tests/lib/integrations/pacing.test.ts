// Pacing of workflow steps' vendor calls: slots from a shared schedule, waits
// inside the step only when short, MustWait (with the bookings) otherwise,
// a vendor's "later" shared by every run, and a person's call outside a step
// waiting for its own slot only when it is near.
// The DynamoDB schedule against dynalite: disjoint slots under concurrency.
import { describe, expect, it } from 'vitest';
import { dynamodbPaceSchedule } from '../../../lib/integrations/dynamodb-pace-schedule.ts';
import { cadenceOf, MustWait, pacing, WAKE_EARLY_MS } from '../../../lib/integrations/pacing.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { fakePaceSchedule } from '../../support/fakes.ts';

/** A clock the code under test moves only by sleeping. */
function virtualTime(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    advance: (ms: number) => (t += ms),
    sleeps,
  };
}

const rate = { limit: 100, windowSeconds: 60 };
const rule = { vendor: 'clickup', key: 'clickup#abc', rate };

describe('pacing', () => {
  it('spaces calls at a little under the limit, after a burst of 3% of it', async () => {
    const time = virtualTime();
    const p = pacing({ schedule: fakePaceSchedule(), now: time.now, sleep: time.sleep });
    const pace = p.of(rule);
    const sent: number[] = [];
    await p.within({ calls: { clickup: 15 } }, async () => {
      for (let i = 0; i < 15; i++) {
        await pace.take();
        sent.push(time.now());
      }
    });
    const { intervalMs } = cadenceOf(rate);
    expect(intervalMs).toBeCloseTo(60_000 / 95);
    const start = sent[0]!;
    // Four go at once (one, and a burst of 3% of the limit), then one per interval: no vendor window takes the limit.
    expect(sent.slice(0, 4).every((t) => t === start)).toBe(true);
    expect(sent[4]! - start).toBeCloseTo(intervalMs);
    for (let i = 5; i < 15; i++) expect(sent[i]! - sent[i - 1]!).toBeCloseTo(intervalMs);
  });

  it('books a step\'s calls in one go, so a later run\'s step waits behind the whole of an earlier one\'s', async () => {
    const time = virtualTime();
    const schedule = fakePaceSchedule();
    const p = pacing({ schedule, now: time.now, sleep: time.sleep });
    await p.within({ calls: { clickup: 15 } }, async () => p.of(rule).take());
    const second = await p.within({ calls: { clickup: 15 } }, async () => p.of(rule).take()).catch((e) => e);
    expect(second).toBeInstanceOf(MustWait);
    const { intervalMs, burstMs } = cadenceOf(rate);
    // Woken a second before its slot: starting its Lambda takes time; it waits out the rest itself.
    expect(second.until).toBe(time.now() + 15 * intervalMs - burstMs - WAKE_EARLY_MS);
    expect(second.bookings).toEqual([expect.objectContaining({ key: 'clickup#abc', count: 15, used: 0 })]);
  });

  it('gives calls a step makes at once one booking, and each its own slot in turn', async () => {
    const time = virtualTime();
    const schedule = fakePaceSchedule();
    const p = pacing({ schedule, now: time.now, sleep: time.sleep });
    const resend = { vendor: 'resend', key: 'resend#abc', rate: { limit: 5, windowSeconds: 1 } };
    const start = time.now();
    await p.within({ calls: { resend: 3 } }, async () => {
      await Promise.all([1, 2, 3].map(() => p.of(resend).take()));
    });
    const { intervalMs } = cadenceOf(resend.rate);
    expect(schedule.nextAt.get(resend.key)).toBe(start + 3 * intervalMs);
    // The first goes at once, each of the others an interval after the one before.
    expect(time.sleeps).toEqual([intervalMs, intervalMs]);
  });

  it('books again once for calls of a step the vendor refused at once', async () => {
    const time = virtualTime();
    const schedule = fakePaceSchedule();
    const p = pacing({ schedule, now: time.now, sleep: time.sleep });
    const errors = await p.within({ calls: { clickup: 4 } }, async () => {
      await p.of(rule).take();
      await p.of(rule).take();
      return Promise.all([p.of(rule).later(10_000).catch((e) => e), p.of(rule).later(10_000).catch((e) => e)]);
    });
    const { intervalMs, burstMs } = cadenceOf(rate);
    // Held until the vendor's time, then booked once: the two slots not used, and one for a refused call.
    expect(schedule.nextAt.get(rule.key)).toBe(time.now() + 10_000 + burstMs + 3 * intervalMs);
    expect(errors.every((e) => e instanceof MustWait)).toBe(true);
    expect(errors[1].bookings).toEqual(errors[0].bookings);
  });

  it('goes on after the wait with the slots it booked, without booking again, waiting for the first itself when woken a little early', async () => {
    const time = virtualTime();
    const schedule = fakePaceSchedule();
    const p = pacing({ schedule, now: time.now, sleep: time.sleep });
    await p.within({ calls: { clickup: 30 } }, async () => p.of(rule).take());
    const waited = (await p.within({ calls: { clickup: 3 } }, async () => p.of(rule).take()).catch((e) => e)) as MustWait;
    const booked = schedule.nextAt.get(rule.key);
    time.advance(waited.until - time.now());
    let calls = 0;
    await p.within({ bookings: waited.bookings, calls: { clickup: 3 } }, async () => {
      for (let i = 0; i < 3; i++) await p.of(rule).take().then(() => calls++);
    });
    expect(calls).toBe(3);
    expect(schedule.nextAt.get(rule.key)).toBe(booked);
  });

  it('takes a wait the state machine ended early as done: the slots keep their spacing from now', async () => {
    const time = virtualTime();
    const p = pacing({ schedule: fakePaceSchedule(), now: time.now, sleep: time.sleep });
    await p.within({ calls: { clickup: 40 } }, async () => p.of(rule).take());
    const waited = (await p.within({ calls: { clickup: 2 } }, async () => p.of(rule).take()).catch((e) => e)) as MustWait;
    expect(waited.until - time.now()).toBeGreaterThan(20_000);
    const resumedAt = time.now();
    await p.within({ bookings: waited.bookings }, async () => {
      await p.of(rule).take();
      await p.of(rule).take();
    });
    expect(time.now() - resumedAt).toBeCloseTo(cadenceOf(rate).intervalMs);
  });

  it('holds every run of the credential when the vendor says later, and ends the step with MustWait until then', async () => {
    const time = virtualTime();
    const schedule = fakePaceSchedule();
    const p = pacing({ schedule, now: time.now, sleep: time.sleep });
    const error = await p.within({ calls: { clickup: 15 } }, async () => p.of(rule).later(600_000)).catch((e) => e);
    expect(error).toBeInstanceOf(MustWait);
    expect(error.until).toBeGreaterThanOrEqual(time.now() + 600_000 - WAKE_EARLY_MS);
    expect(error.message).toBe(`waiting for clickup until ${new Date(error.until).toISOString()}`);
    // Woken then, it waits for its slot, which is not before the vendor's time.
    const resumedAt = time.advance(error.until - time.now());
    await p.within({ bookings: error.bookings }, async () => p.of(rule).take());
    expect(time.now()).toBeGreaterThanOrEqual(resumedAt + WAKE_EARLY_MS);
    // Another run's step, even one that had not called yet, books after the hold.
    const other = await p.within({ calls: { clickup: 1 } }, async () => p.of(rule).take()).catch((e) => e);
    expect(other.until + WAKE_EARLY_MS).toBeGreaterThanOrEqual(resumedAt + WAKE_EARLY_MS);
  });

  it('honours a "later" of a vendor with no rate, and paces nothing of it', async () => {
    const time = virtualTime();
    const p = pacing({ schedule: fakePaceSchedule(), now: time.now, sleep: time.sleep });
    const dropbox = p.of({ vendor: 'dropbox', key: 'dropbox#x', rate: null });
    await p.within({}, async () => {
      for (let i = 0; i < 50; i++) await dropbox.take();
    });
    expect(time.sleeps).toEqual([]);
    const error = await p.within({}, async () => dropbox.later(undefined)).catch((e) => e);
    expect(error).toBeInstanceOf(MustWait);
    expect(error.until).toBe(time.now() + 5000);
  });

  it('outside a step (a person waiting on an answer), books one slot per call and waits for it when near, else fails as throttled', async () => {
    const time = virtualTime();
    const schedule = fakePaceSchedule();
    const p = pacing({ schedule, now: time.now, sleep: time.sleep, personWaitMs: 3000 });
    const start = time.now();
    const { intervalMs } = cadenceOf(rate);
    // Four go at once (one, and the burst of three), then one per interval of 60/95 s.
    for (let i = 0; i < 8; i++) await p.of(rule).take();
    expect(time.now() - start).toBeCloseTo(4 * intervalMs);
    // Other callers have the next minute's slots: a person is not kept waiting that long.
    schedule.nextAt.set(rule.key, time.now() + 60_000);
    const refused = await p.of(rule).take().catch((e) => e);
    expect(refused).toMatchObject({ name: 'VendorThrottled', vendor: 'clickup', context: { throttled: true, transient: true } });
    expect(refused.context.retryAfterMs).toBeGreaterThan(55_000);
    expect(time.now() - start).toBeCloseTo(4 * intervalMs);
  });

  it("outside a step, a vendor's \"later\" holds every caller of the credential and returns for the call's own retry", async () => {
    const time = virtualTime();
    const schedule = fakePaceSchedule();
    const p = pacing({ schedule, now: time.now, sleep: time.sleep });
    await p.of(rule).later(60_000);
    expect(schedule.nextAt.get(rule.key)).toBe(time.now() + 60_000 + cadenceOf(rate).burstMs);
    expect(time.sleeps).toEqual([]);
    await p.within({}, async () => {
      const waited = await p.of(rule).take().catch((e) => e);
      expect(waited).toBeInstanceOf(MustWait);
    });
  });
});

describe('the DynamoDB pacing schedule', () => {
  const d = useDynamo();

  it('gives concurrent bookings disjoint slots, one after another', async () => {
    const schedule = dynamodbPaceSchedule(d);
    const now = Date.now();
    const firsts = await Promise.all(Array.from({ length: 20 }, () => schedule.book('clickup#concurrent', 3, 100, now)));
    const sorted = [...firsts].sort((a, b) => a - b);
    expect(sorted[0]).toBe(now);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBe(300);
  });

  it('starts an idle schedule at now, and holds it until a vendor\'s reset', async () => {
    const schedule = dynamodbPaceSchedule(d);
    const now = Date.now();
    expect(await schedule.book('close#idle', 1, 50, now - 60_000)).toBe(now - 60_000);
    expect(await schedule.book('close#idle', 2, 50, now)).toBe(now);
    await schedule.holdUntil('close#idle', now + 30_000);
    await schedule.holdUntil('close#idle', now + 10_000);
    expect(await schedule.book('close#idle', 1, 50, now)).toBe(now + 30_000);
  });
});
