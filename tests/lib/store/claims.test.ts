// The claim primitive against dynalite, and the same contract against the
// in-memory fake the policies' unit tests use, so the fake cannot drift.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { acquireWaiting, whileHolding, type ClaimPolicy, type Claims } from '../../../lib/store/claims.ts';
import { dynamodbClaims } from '../../../lib/store/dynamodb-claims.ts';
import type { DynamoDBDocumentClient } from '../../../lib/store/dynamodb.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { fakeClaims } from '../../support/fakes.ts';

const d = useDynamo();
const LEASE_MS = 60_000;
const ONCE: ClaimPolicy = { kind: 'once', leaseMs: LEASE_MS };
const TURNS: ClaimPolicy = { kind: 'turns', leaseMs: LEASE_MS };
const DAY = 86_400_000;

type Clock = { now: Date; pass(ms: number): void };
const clock = (): Clock => ({
  now: new Date('2026-01-01T00:00:00Z'),
  pass(ms) {
    this.now = new Date(this.now.getTime() + ms);
  },
});
const key = () => `k-${crypto.randomUUID()}`;

/** DynamoDB requests made through a client, counted. */
function counted(db: DynamoDBDocumentClient) {
  const calls = { count: 0 };
  return { calls, db: { send: (command: unknown) => (calls.count++, db.send(command as never)) } as unknown as DynamoDBDocumentClient };
}

const implementations: [string, (policy: ClaimPolicy, time?: Clock) => Claims<string, Record<string, unknown>>][] = [
  ['dynalite', (policy, time) => dynamodbClaims({ db: d.db, tableName: d.tables.webhook_events, key: (k: string) => ({ event_key: k }), policy, now: time && (() => time.now) })],
  ['the in-memory fake', (policy, time) => fakeClaims(policy, { now: time && (() => time.now) })],
];

describe.each(implementations)('claims (%s)', (_, claimsWith) => {
  describe("'once'", () => {
    it('lets exactly one of many concurrent callers acquire; the others see it held, then finished with its value for good', async () => {
      const claims = claimsWith(ONCE);
      const k = key();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claims.acquire(k, `h${i}`)));
      const winners = answers.flatMap((a, i) => (a.state === 'acquired' ? [`h${i}`] : []));
      expect(winners).toHaveLength(1);
      expect(answers.filter((a) => a.state === 'held')).toHaveLength(19);

      expect(await claims.value(k)).toBeUndefined();
      expect(await claims.finish(k, winners[0]!, { id: 'made' })).toBe(true);
      expect(await claims.acquire(k, 'late')).toEqual({ state: 'finished', value: { id: 'made' } });
      expect(await claims.value(k)).toEqual({ id: 'made' });
      // Finished is final: neither the holder nor anyone else reopens or rewrites it.
      await claims.release(k, winners[0]!);
      expect(await claims.finish(k, winners[0]!, { id: 'again' })).toBe(false);
      expect(await claims.acquire(k, winners[0]!)).toEqual({ state: 'finished', value: { id: 'made' } });
    });

    it('lets its holder take it again (a retried step), and only its holder finish or release it', async () => {
      const claims = claimsWith(ONCE);
      const k = key();
      expect(await claims.acquire(k, 'run-a')).toEqual({ state: 'acquired' });
      expect(await claims.acquire(k, 'run-a')).toEqual({ state: 'acquired' });
      expect(await claims.acquire(k, 'run-b')).toEqual({ state: 'held' });
      expect(await claims.finish(k, 'run-b', { id: 'b' })).toBe(false);
      await claims.release(k, 'run-b');
      expect(await claims.acquire(k, 'run-c')).toEqual({ state: 'held' });
      // Given back by its holder (the work failed): the next caller takes it at once.
      await claims.release(k, 'run-a');
      expect(await claims.acquire(k, 'run-c')).toEqual({ state: 'acquired' });
      expect(await claims.value(k)).toBeUndefined();
    });

    it('hands a claim whose lease lapsed (its holder died) to the next caller; the late holder can no longer finish it', async () => {
      const time = clock();
      const claims = claimsWith(ONCE, time);
      const k = key();
      expect(await claims.acquire(k, 'dead')).toEqual({ state: 'acquired' });
      time.pass(LEASE_MS);
      expect(await claims.acquire(k, 'retry')).toEqual({ state: 'held' });
      time.pass(1);
      expect(await claims.acquire(k, 'retry')).toEqual({ state: 'acquired' });
      expect(await claims.finish(k, 'dead', { by: 'dead' })).toBe(false);
      await claims.release(k, 'dead');
      expect(await claims.acquire(k, 'third')).toEqual({ state: 'held' });
      expect(await claims.finish(k, 'retry', { by: 'retry' })).toBe(true);
      expect(await claims.value(k)).toEqual({ by: 'retry' });
    });

    it('gives a lapsed claim to exactly one of many concurrent callers', async () => {
      const time = clock();
      const claims = claimsWith(ONCE, time);
      const k = key();
      await claims.acquire(k, 'dead');
      time.pass(LEASE_MS + 1);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => claims.acquire(k, `h${i}`)));
      expect(answers.filter((a) => a.state === 'acquired')).toHaveLength(1);
      expect(answers.filter((a) => a.state === 'held')).toHaveLength(9);
    });

    it('takes a value recorded outside any claim as finished', async () => {
      const claims = claimsWith(ONCE);
      const k = key();
      await claims.acquire(k, 'maker');
      await claims.record(k, { email: 'ada@example.com' });
      expect(await claims.value(k)).toEqual({ email: 'ada@example.com' });
      expect(await claims.finish(k, 'maker', { email: 'other' })).toBe(false);
      expect(await claims.acquire(k, 'another')).toEqual({ state: 'finished', value: { email: 'ada@example.com' } });
    });

    it('forgets a claim after its retention: the work may be done again', async () => {
      const time = clock();
      const claims = claimsWith({ ...ONCE, retentionMs: 30 * DAY }, time);
      const k = key();
      await claims.acquire(k, 'first');
      await claims.finish(k, 'first', { n: 1 });
      time.pass(29 * DAY);
      expect(await claims.acquire(k, 'second')).toEqual({ state: 'finished', value: { n: 1 } });
      time.pass(2 * DAY);
      expect(await claims.value(k)).toBeUndefined();
      expect(await claims.acquire(k, 'second')).toEqual({ state: 'acquired' });
      expect(await claims.value(k)).toBeUndefined();
      expect(await claims.finish(k, 'second', { n: 2 })).toBe(true);
      expect(await claims.acquire(k, 'third')).toEqual({ state: 'finished', value: { n: 2 } });
    });
  });

  describe("'turns'", () => {
    it('lets one holder at a time rewrite the value; each finish ends a turn and hands the value to the next holder', async () => {
      const time = clock();
      const claims = claimsWith(TURNS, time);
      const k = key();
      expect(await claims.acquire(k, 'exec-a')).toEqual({ state: 'acquired' });
      expect(await claims.acquire(k, 'exec-a')).toEqual({ state: 'acquired' });
      expect(await claims.acquire(k, 'exec-b')).toEqual({ state: 'held' });
      expect(await claims.finish(k, 'exec-a', { taskId: 't1', state: 'booked' })).toBe(true);
      expect(await claims.acquire(k, 'exec-b')).toEqual({ state: 'acquired', value: { taskId: 't1', state: 'booked' } });
      // exec-a's turn is over: it can neither release nor finish exec-b's.
      await claims.release(k, 'exec-a');
      expect(await claims.finish(k, 'exec-a', { taskId: 't1', state: 'stale' })).toBe(false);
      expect(await claims.acquire(k, 'exec-c')).toEqual({ state: 'held' });
      await claims.release(k, 'exec-b');
      expect(await claims.acquire(k, 'exec-c')).toEqual({ state: 'acquired', value: { taskId: 't1', state: 'booked' } });
      time.pass(LEASE_MS + 1);
      expect(await claims.acquire(k, 'exec-d')).toEqual({ state: 'acquired', value: { taskId: 't1', state: 'booked' } });
      expect(await claims.finish(k, 'exec-d', { taskId: 't1', state: 'cancelled' })).toBe(true);
      expect(await claims.value(k)).toEqual({ taskId: 't1', state: 'cancelled' });
    });
  });

  describe('waiting and holding', () => {
    it('waits while another holds the claim, and answers what it finished with; without patience, answers held', async () => {
      const claims = claimsWith(ONCE);
      const k = key();
      await claims.acquire(k, 'maker');
      const pauses: number[] = [];
      const sleep = async (ms: number) => {
        pauses.push(ms);
        if (pauses.length === 3) await claims.finish(k, 'maker', { id: 'f1' });
      };
      expect(await acquireWaiting(claims, k, 'waiter', { waitMs: 10_000, pauseMs: 250, sleep })).toEqual({ state: 'finished', value: { id: 'f1' } });
      expect(pauses).toEqual([250, 250, 250]);
      const other = key();
      await claims.acquire(other, 'maker');
      expect(await acquireWaiting(claims, other, 'waiter', { waitMs: 500, pauseMs: 250, sleep: async () => undefined })).toEqual({ state: 'held' });
    });

    it('gives the claim back when the work fails, so the next caller takes it at once', async () => {
      const claims = claimsWith(ONCE);
      const k = key();
      await claims.acquire(k, 'a');
      await expect(whileHolding(claims, k, 'a', () => Promise.reject(new Error('vendor down')))).rejects.toThrow('vendor down');
      expect(await claims.acquire(k, 'b')).toEqual({ state: 'acquired' });
    });
  });
});

describe('claims in DynamoDB', () => {
  it('answers every caller in one request, whether it wins, loses to a live holder, or finds the work done', async () => {
    const { db, calls } = counted(d.db);
    const claims = dynamodbClaims<string, string>({ db, tableName: d.tables.webhook_events, key: (k) => ({ event_key: k }), policy: ONCE });
    const k = key();
    const copies = await Promise.all(Array.from({ length: 50 }, (_, i) => claims.acquire(k, `copy-${i}`)));
    expect(calls.count).toBe(50);
    const winner = copies.findIndex((c) => c.state === 'acquired');
    await claims.finish(k, `copy-${winner}`, 'applied');
    calls.count = 0;
    await Promise.all(Array.from({ length: 20 }, (_, i) => claims.acquire(k, `late-${i}`)));
    expect(calls.count).toBe(20);
  });

  it('keeps one attribute naming, the first caller’s `about`, and the retention as the table’s TTL attribute', async () => {
    const time = clock();
    const claims = dynamodbClaims<string, string>({ db: d.db, tableName: d.tables.webhook_events, key: (k) => ({ event_key: k }), policy: { ...ONCE, retentionMs: 30 * DAY }, now: () => time.now });
    const k = key();
    await claims.acquire(k, 'h1', { source: 'stripe', received_at: 'first' });
    await claims.acquire(k, 'h2', { source: 'stripe', received_at: 'second' });
    const row = async () => (await d.db.send(new GetCommand({ TableName: d.tables.webhook_events, Key: { event_key: k } }))).Item;
    expect(await row()).toEqual({
      event_key: k,
      holder: 'h1',
      lease_until: time.now.getTime() + LEASE_MS,
      expires_at: Math.floor((time.now.getTime() + 30 * DAY) / 1000),
      source: 'stripe',
      received_at: 'first',
    });
    time.pass(1000);
    await claims.finish(k, 'h1', 'applied', { account_id: 'acct-found' });
    expect(await row()).toMatchObject({ holder: 'h1', value: 'applied', finished_at: time.now.toISOString(), account_id: 'acct-found', expires_at: Math.floor((time.now.getTime() + 30 * DAY) / 1000) });
  });
});
