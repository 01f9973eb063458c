// The DynamoDB rate limiter against dynalite: exact under concurrency, windows
// that end by the clock (dynalite has no TTL), subjects kept apart and hashed.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { RateLimited } from '../../../lib/errors.ts';
import { dynamodbRateLimiter } from '../../../lib/rate-limit/dynamodb-rate-limiter.ts';
import { enforceRateLimits, type RateLimitRule } from '../../../lib/rate-limit/rate-limiter.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const rule = (limit: number, windowSeconds = 600): RateLimitRule => ({ name: `test-${crypto.randomUUID()}`, limit, windowSeconds });

/** A clock the test moves by hand. */
function clock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  return { now: () => new Date(t), advance: (seconds: number) => (t += seconds * 1000) };
}

describe('the DynamoDB rate limiter', () => {
  it('lets exactly the limit through when 20 hits arrive at once', async () => {
    const limiter = dynamodbRateLimiter(d);
    const r = rule(5);
    const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.hit(r, '198.51.100.1')));
    expect(decisions.filter((x) => x.allowed)).toHaveLength(5);
    for (const refused of decisions.filter((x) => !x.allowed)) {
      expect(refused.retryAfterSeconds).toBeGreaterThan(0);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(600);
    }
  });

  it('stays exact when the window is already open and half used', async () => {
    const limiter = dynamodbRateLimiter(d);
    const r = rule(7);
    for (let i = 0; i < 3; i++) expect((await limiter.hit(r, 'x')).allowed).toBe(true);
    const decisions = await Promise.all(Array.from({ length: 15 }, () => limiter.hit(r, 'x')));
    expect(decisions.filter((x) => x.allowed)).toHaveLength(4);
  });

  it('counts refused hits nowhere, and says how long until the window ends', async () => {
    const c = clock();
    const limiter = dynamodbRateLimiter({ ...d, now: c.now });
    const r = rule(2, 600);
    await limiter.hit(r, 'a');
    c.advance(100);
    await limiter.hit(r, 'a');
    c.advance(50);
    expect(await limiter.hit(r, 'a')).toEqual({ allowed: false, retryAfterSeconds: 450 });
    expect(await limiter.hit(r, 'a')).toEqual({ allowed: false, retryAfterSeconds: 450 });
  });

  it('opens a new window once the old one has ended by the clock', async () => {
    const c = clock();
    const limiter = dynamodbRateLimiter({ ...d, now: c.now });
    const r = rule(1, 60);
    expect((await limiter.hit(r, 'a')).allowed).toBe(true);
    expect((await limiter.hit(r, 'a')).allowed).toBe(false);
    c.advance(59);
    expect(await limiter.hit(r, 'a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    c.advance(1);
    expect((await limiter.hit(r, 'a')).allowed).toBe(true);
    expect((await limiter.hit(r, 'a')).allowed).toBe(false);
  });

  it('opens exactly one new window when hits race on an expired one', async () => {
    const c = clock();
    const limiter = dynamodbRateLimiter({ ...d, now: c.now });
    const r = rule(3, 60);
    for (let i = 0; i < 3; i++) await limiter.hit(r, 'a');
    c.advance(61);
    const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.hit(r, 'a')));
    expect(decisions.filter((x) => x.allowed)).toHaveLength(3);
  });

  it('keeps subjects and rules apart', async () => {
    const limiter = dynamodbRateLimiter(d);
    const r = rule(1);
    expect((await limiter.hit(r, 'one')).allowed).toBe(true);
    expect((await limiter.hit(r, 'two')).allowed).toBe(true);
    expect((await limiter.hit(rule(1), 'one')).allowed).toBe(true);
    expect((await limiter.hit(r, 'one')).allowed).toBe(false);
  });

  it('tells the one hit that used a window’s last place so, however many arrive at once; a peek counts nothing', async () => {
    const c = clock();
    const limiter = dynamodbRateLimiter({ ...d, now: c.now });
    const r = rule(5, 600);
    expect(await limiter.peek(r, 'a')).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 5 });
    const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.hit(r, 'a')));
    expect(decisions.filter((x) => x.allowed).map((x) => x.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
    c.advance(100);
    expect(await limiter.peek(r, 'a')).toEqual({ allowed: false, retryAfterSeconds: 500 });
    expect(await limiter.peek(r, 'b')).toMatchObject({ allowed: true, remaining: 5 });
    c.advance(500);
    expect(await limiter.peek(r, 'a')).toMatchObject({ allowed: true, remaining: 5 });
  });

  it('refuses everything at a limit of 0', async () => {
    expect((await dynamodbRateLimiter(d).hit(rule(0), 'a')).allowed).toBe(false);
  });

  it('stores neither IP addresses nor e-mail addresses', async () => {
    const limiter = dynamodbRateLimiter(d);
    await limiter.hit(rule(3), 'person@example.com');
    const { Items = [] } = await d.db.send(new ScanCommand({ TableName: d.tables.rate_limits }));
    expect(JSON.stringify(Items)).not.toContain('person@example.com');
    expect(Items.length).toBeGreaterThan(0);
  });
});

describe('enforcing several limits', () => {
  it('throws 429 with Retry-After at the first limit reached', async () => {
    const limiter = dynamodbRateLimiter(d);
    const perIp = rule(10);
    const perEmail = rule(1, 900);
    await enforceRateLimits(limiter, [{ rule: perIp, subject: 'ip' }, { rule: perEmail, subject: 'e' }]);
    const error = await enforceRateLimits(limiter, [{ rule: perIp, subject: 'ip' }, { rule: perEmail, subject: 'e' }]).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimited);
    expect(error.retryAfterSeconds).toBeGreaterThan(890);
  });
});
