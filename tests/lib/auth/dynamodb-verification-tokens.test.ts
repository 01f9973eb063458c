// Verification tokens in DynamoDB (dynalite): stored as hashes, consumed once,
// refused once expired by the clock, and given back only by their consumer.
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamodbVerificationTokens } from '../../../lib/auth/dynamodb-verification-tokens.ts';
import { hashToken, newVerificationToken, type VerificationRecord } from '../../../lib/auth/verification-tokens.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const NOW = new Date('2026-03-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

async function saved(overrides: Partial<VerificationRecord> = {}) {
  const token = newVerificationToken();
  const record: VerificationRecord = {
    tokenHash: hashToken(token),
    userId: crypto.randomUUID(),
    email: `${crypto.randomUUID()}@example.com`,
    companyName: 'Acme',
    createdAt: NOW.toISOString(),
    expiresAt: nowSeconds + 3600,
    ...overrides,
  };
  await dynamodbVerificationTokens(d).save(record);
  return { token, record };
}

describe('verification tokens in DynamoDB', () => {
  it('makes tokens of at least 128 random bits, and stores only their SHA-256', async () => {
    const { token, record } = await saved();
    expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(new Set(Array.from({ length: 100 }, newVerificationToken)).size).toBe(100);
    const { Items = [] } = await d.db.send(new ScanCommand({ TableName: d.tables.verification_tokens }));
    expect(JSON.stringify(Items)).not.toContain(token);
    expect(Items.map((i) => i.token_hash)).toContain(record.tokenHash);
  });

  it('gives the record to the first consumer only', async () => {
    const { record } = await saved();
    const store = dynamodbVerificationTokens(d);
    expect(await store.consume(record.tokenHash, NOW)).toMatchObject({ userId: record.userId, email: record.email, companyName: 'Acme' });
    expect(await store.consume(record.tokenHash, NOW)).toBeUndefined();
  });

  it('lets one of twenty concurrent consumers win', async () => {
    const { record } = await saved();
    const store = dynamodbVerificationTokens(d);
    const results = await Promise.all(Array.from({ length: 20 }, () => store.consume(record.tokenHash, NOW)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('refuses an expired token and leaves it untouched', async () => {
    const { record } = await saved({ expiresAt: nowSeconds });
    expect(await dynamodbVerificationTokens(d).consume(record.tokenHash, NOW)).toBeUndefined();
    const row = await d.db.send(new GetCommand({ TableName: d.tables.verification_tokens, Key: { token_hash: record.tokenHash } }));
    expect(row.Item?.used_at).toBeUndefined();
  });

  it('refuses an unknown token without creating anything', async () => {
    const hash = hashToken('never-issued');
    expect(await dynamodbVerificationTokens(d).consume(hash, NOW)).toBeUndefined();
    const row = await d.db.send(new GetCommand({ TableName: d.tables.verification_tokens, Key: { token_hash: hash } }));
    expect(row.Item).toBeUndefined();
  });

  it('restores a consumed token for a retry, but never one consumed by someone else', async () => {
    const { record } = await saved();
    const store = dynamodbVerificationTokens(d);
    const first = (await store.consume(record.tokenHash, NOW))!;
    await store.restore(first);
    const second = (await store.consume(record.tokenHash, new Date(NOW.getTime() + 1000)))!;
    expect(second).toBeDefined();
    await store.restore(first); // stale: the token is now second's
    expect(await store.consume(record.tokenHash, NOW)).toBeUndefined();
  });

  it("voids a user's links issued up to a time, only forward, with a row no consume can ever take", async () => {
    const store = dynamodbVerificationTokens(d);
    const { record } = await saved();
    const other = await saved();
    const later = new Date(NOW.getTime() + 60_000);
    expect(await store.isVoided(record)).toBe(false);
    await store.voidLinksOf(record.userId, later, nowSeconds + 24 * 3600);
    expect(await store.isVoided(record)).toBe(true);
    expect(await store.isVoided({ userId: record.userId, createdAt: new Date(later.getTime() + 1).toISOString() })).toBe(false);
    expect(await store.isVoided(other.record)).toBe(false);
    // An earlier voiding arriving late moves nothing back.
    await store.voidLinksOf(record.userId, NOW, nowSeconds + 3600);
    expect(await store.isVoided({ userId: record.userId, createdAt: new Date(NOW.getTime() + 1000).toISOString() })).toBe(true);

    const { Item } = await d.db.send(new GetCommand({ TableName: d.tables.verification_tokens, Key: { token_hash: `links-void#${record.userId}` } }));
    expect(Item).toMatchObject({ purpose: 'void-links', user_id: record.userId, void_before: later.toISOString(), expires_at: nowSeconds + 24 * 3600 });
    expect(await store.consume(`links-void#${record.userId}`, NOW)).toBeUndefined();
  });
});
