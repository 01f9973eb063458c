// The webhooks' DynamoDB adapters against dynalite.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamodbIntegrations, hashSecret } from '../../../lib/accounts/integrations.ts';
import { dynamodbBookingTasks } from '../../../lib/webhooks/dynamodb-booking-tasks.ts';
import { dynamodbDeliveries } from '../../../lib/deliveries/dynamodb-deliveries.ts';
import { dynamodbMembershipMembers } from '../../../lib/webhooks/dynamodb-membership-members.ts';
import { dynamodbWebhookIntegrations } from '../../../lib/webhooks/dynamodb-webhook-integrations.ts';
import { accountForPathSecret } from '../../../lib/webhooks/webhook-integrations.ts';
import type { MembershipMember } from '../../../lib/webhooks/membership-state.ts';
import { dynamodbLedger } from '../../../lib/provisioning/ledger.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const id = () => crypto.randomUUID();
const about = { accountId: 'acct', source: 'test' };

describe('the delivery log', () => {
  it('lets exactly one of many concurrent deliveries claim an event, and remembers what it did', async () => {
    const log = dynamodbDeliveries(d);
    const key = `k-${id()}`;
    const claims = await Promise.all(Array.from({ length: 10 }, () => log.claim(key, about)));
    const won = claims.filter((c) => c.state === 'claimed');
    expect(won).toHaveLength(1);
    expect(claims.filter((c) => c.state === 'in-progress')).toHaveLength(9);
    await log.complete(key, (won[0] as { token: string }).token, 'queued: x');
    expect(await log.claim(key, about)).toEqual({ state: 'done', outcome: 'queued: x' });
    const row = (await d.db.send(new GetCommand({ TableName: d.tables.webhook_events, Key: { event_key: key } }))).Item!;
    expect(row).toMatchObject({ status: 'done', account_id: 'acct', source: 'test', outcome: 'queued: x' });
    expect(row.expires_at).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
  });

  it('records the account when the work found it, for an event claimed before its account was known', async () => {
    const log = dynamodbDeliveries(d);
    const key = `k-${id()}`;
    const claim = await log.claim(key, { source: 'stripe' });
    if (claim.state !== 'claimed') throw new Error('not claimed');
    const read = async () => (await d.db.send(new GetCommand({ TableName: d.tables.webhook_events, Key: { event_key: key } }))).Item!;
    expect(await read()).not.toHaveProperty('account_id');
    await log.complete(key, claim.token, 'applied', 'acct-found');
    expect(await read()).toMatchObject({ status: 'done', source: 'stripe', outcome: 'applied', account_id: 'acct-found' });
    // Nor does a completion without an account remove the one named at the claim.
    const other = `k-${id()}`;
    const held = await log.claim(other, about);
    await log.complete(other, (held as { token: string }).token, 'queued');
    expect((await d.db.send(new GetCommand({ TableName: d.tables.webhook_events, Key: { event_key: other } }))).Item).toMatchObject({ status: 'done', account_id: 'acct' });
  });

  it('hands a released claim to the next delivery, and only the holder can release or complete it', async () => {
    const log = dynamodbDeliveries(d);
    const key = `k-${id()}`;
    const first = await log.claim(key, about);
    if (first.state !== 'claimed') throw new Error('not claimed');
    await log.release(key, 'someone-else');
    await log.complete(key, 'someone-else', 'applied');
    expect((await log.claim(key, about)).state).toBe('in-progress');
    await log.release(key, first.token);
    expect((await log.claim(key, about)).state).toBe('claimed');
  });

  it('lets a retry take over a claim whose lease ran out (its holder died), and forgets events after their retention', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const log = dynamodbDeliveries({ ...d, now: () => now, settings: { leaseMs: 60_000, retentionDays: 30 } });
    const key = `k-${id()}`;
    const dead = await log.claim(key, about);
    expect(dead.state).toBe('claimed');
    now = new Date(now.getTime() + 59_000);
    expect((await log.claim(key, about)).state).toBe('in-progress');
    now = new Date(now.getTime() + 2_000);
    const retry = await log.claim(key, about);
    if (retry.state !== 'claimed') throw new Error('not taken over');
    // The dead holder's late completion changes nothing: the retry's claim stands.
    await log.complete(key, (dead as { token: string }).token, 'applied');
    expect((await log.claim(key, about)).state).toBe('in-progress');
    await log.complete(key, retry.token, 'applied');
    expect((await log.claim(key, about)).state).toBe('done');
    now = new Date(now.getTime() + 31 * 86_400_000);
    expect((await log.claim(key, about)).state).toBe('claimed');
  });
});

describe('the delivery log, looked at by a waiting duplicate', () => {
  it('sees a live claim in progress, then done with its outcome; a given-back, lapsed or forgotten event as free', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const log = dynamodbDeliveries({ ...d, now: () => now, settings: { leaseMs: 60_000, retentionDays: 30 } });
    const key = `k-${id()}`;
    expect(await log.peek(key)).toEqual({ state: 'free' });
    const held = await log.claim(key, about);
    if (held.state !== 'claimed') throw new Error('not claimed');
    expect(await log.peek(key)).toEqual({ state: 'in-progress' });
    await log.release(key, held.token);
    expect(await log.peek(key)).toEqual({ state: 'free' });

    const again = await log.claim(key, about);
    if (again.state !== 'claimed') throw new Error('not claimed');
    now = new Date(now.getTime() + 61_000);
    expect(await log.peek(key)).toEqual({ state: 'free' });
    const retry = await log.claim(key, about);
    if (retry.state !== 'claimed') throw new Error('not taken over');
    await log.complete(key, retry.token, 'queued: x');
    expect(await log.peek(key)).toEqual({ state: 'done', outcome: 'queued: x' });
    now = new Date(now.getTime() + 31 * 86_400_000);
    expect(await log.peek(key)).toEqual({ state: 'free' });
  });
});

describe('webhook integrations', () => {
  it('finds the account by its secret, and after a rotation only by the new one', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const accountId = id();
    const first = await store.ensure(accountId);
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await accountForPathSecret(store, first.secret)).accountId).toBe(accountId);

    const rotated = await store.rotate(accountId);
    expect(rotated.secret).not.toBe(first.secret);
    expect(rotated.rotatedAt).toEqual(expect.any(String));
    expect((await accountForPathSecret(store, rotated.secret)).accountId).toBe(accountId);
    await expect(accountForPathSecret(store, first.secret)).rejects.toMatchObject({ code: 'not_found' });
    const old = (await d.db.send(new GetCommand({ TableName: d.tables.webhook_secrets, Key: { secret_hash: hashSecret(first.secret) } }))).Item!;
    expect(old).toMatchObject({ status: 'revoked', account_id: accountId });
    // Onboarding's ensure keeps the rotated secret.
    await dynamodbIntegrations(d).ensure(accountId);
    expect((await store.get(accountId))!.secret).toBe(rotated.secret);
  });

  it('answers the same 404 for unknown, truncated, padded and wrong secrets of the right length', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const { secret } = await store.ensure(id());
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const presented of [wrong, secret.slice(0, 42), `${secret}x`, '', undefined, 'x'.repeat(43), `${secret.slice(0, 42)}/`]) {
      await expect(accountForPathSecret(store, presented)).rejects.toMatchObject({ code: 'not_found', message: 'There is no webhook at this address' });
    }
  });

  it('refuses an index entry whose account has moved on to another secret (an interrupted rotation)', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const accountId = id();
    await store.ensure(accountId);
    const stray = 'S'.repeat(43);
    await d.db.send(
      new (await import('@aws-sdk/lib-dynamodb')).PutCommand({ TableName: d.tables.webhook_secrets, Item: { secret_hash: hashSecret(stray), account_id: accountId, status: 'active' } }),
    );
    await expect(accountForPathSecret(store, stray)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('gives concurrent rotations one winner each time, and every secret but the last stops working', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const accountId = id();
    const first = await store.ensure(accountId);
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => store.rotate(accountId)));
    const current = (await store.get(accountId))!.secret;
    expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'rotation_in_progress' });
    for (const r of results) {
      if (r.status === 'fulfilled' && r.value.secret !== current) await expect(accountForPathSecret(store, r.value.secret)).rejects.toMatchObject({ code: 'not_found' });
    }
    await expect(accountForPathSecret(store, first.secret)).rejects.toMatchObject({ code: 'not_found' });
    expect((await accountForPathSecret(store, current)).accountId).toBe(accountId);
  });

  it('sets and clears signing keys one by one', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const accountId = id();
    await store.ensure(accountId);
    expect((await store.setSigningKeys(accountId, { calendly: 'k1', calcom: 'k2' })).signingKeys).toEqual({ calendly: 'k1', calcom: 'k2' });
    expect((await store.setSigningKeys(accountId, { calendly: null, membership: 'whsec_x' })).signingKeys).toEqual({ calcom: 'k2', membership: 'whsec_x' });
    await expect(store.setSigningKeys(id(), { calendly: 'k' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('membership members', () => {
  const member = (email: string, accountId = 'acct'): MembershipMember => ({
    email,
    account_id: accountId,
    role: 'member',
    status: 'active',
    membership: { provider: 'memberstack', member_id: 'mem_1', status: 'active', plans: {}, paying: false },
  });

  it('creates once, then writes only under the version it read', async () => {
    const store = dynamodbMembershipMembers(d);
    const email = `${id()}@example.com`;
    expect(await store.save(member(email), { status: 'active' }, true)).toBe(true);
    expect(await store.save(member(email), { status: 'active' }, true)).toBe(false);
    const read = (await store.get(email))!;
    expect(read.membership_version).toBe(1);
    const paying = { ...read, membership: { ...read.membership!, paying: true } };
    expect(await store.save(paying, {}, false)).toBe(true);
    // A writer holding the old version loses.
    expect(await store.save({ ...read, membership: { ...read.membership!, status: 'deleted' as const } }, { status: 'removed' }, false)).toBe(false);
    expect(await store.get(email)).toMatchObject({ status: 'active', membership_version: 2, membership: { paying: true } });
    await store.markOnboardingStarted(email, 'acct', 'run-1');
    expect(await store.get(email)).toMatchObject({ membership_version: 3, membership: { onboarding_run: 'run-1' } });
  });

  it('adds the membership to a member written by onboarding, keeping what onboarding wrote, and never writes across accounts', async () => {
    const store = dynamodbMembershipMembers(d);
    const email = `${id()}@example.com`;
    const { dynamodbAccounts } = await import('../../../lib/accounts/dynamodb-accounts.ts');
    await dynamodbAccounts(d).claimMember({ email, account_id: 'acct', role: 'owner' });
    const owner = (await store.get(email))!;
    expect(await store.save({ ...member(email), role: 'owner', status: owner.status }, {}, false)).toBe(true);
    expect(await store.get(email)).toMatchObject({ role: 'owner', status: 'provisioning', membership: { member_id: 'mem_1' } });
    expect(await store.save({ ...member(email, 'other'), membership_version: 1 }, {}, false)).toBe(false);
  });
});

describe('booking tasks', () => {
  it('lets one holder write a booking at a time, until it saves, releases, or its lease runs out', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const tasks = dynamodbBookingTasks({ ...d, now: () => now });
    const ref = `calcom#${id()}`;
    expect(await tasks.claim('acct', ref, 'exec-a')).toBe(true);
    expect(await tasks.claim('acct', ref, 'exec-a')).toBe(true);
    expect(await tasks.claim('acct', ref, 'exec-b')).toBe(false);
    await tasks.save('acct', ref, { taskId: 't1', url: 'https://t/1', state: 'booked', eventAt: '2026-01-01T00:00:00.000Z', startTime: '2026-02-01T10:00:00.000Z' });
    expect(await tasks.get('acct', ref)).toEqual({ taskId: 't1', url: 'https://t/1', state: 'booked', eventAt: '2026-01-01T00:00:00.000Z', startTime: '2026-02-01T10:00:00.000Z' });
    // The ledger sees the task id where every ledger entry keeps it.
    expect(await dynamodbLedger(d).get('acct', `booking#${ref}`)).toMatchObject({ id: 't1' });
    expect(await tasks.claim('acct', ref, 'exec-b')).toBe(true);
    await tasks.release('acct', ref, 'exec-a');
    expect(await tasks.claim('acct', ref, 'exec-c')).toBe(false);
    await tasks.release('acct', ref, 'exec-b');
    expect(await tasks.claim('acct', ref, 'exec-c')).toBe(true);
    now = new Date(now.getTime() + 181_000);
    expect(await tasks.claim('acct', ref, 'exec-d')).toBe(true);
    expect((await tasks.get('acct', ref))?.taskId).toBe('t1');
  });
});
