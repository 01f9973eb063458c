// The webhooks' DynamoDB adapters against dynalite (the delivery log's are in tests/lib/deliveries/).
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamodbIntegrations, hashSecret } from '../../../lib/accounts/integrations.ts';
import { dynamodbLedger } from '../../../lib/provisioning/dynamodb-ledger.ts';
import { dynamodbBookingTasks } from '../../../lib/webhooks/dynamodb-booking-tasks.ts';
import { dynamodbMembershipMembers } from '../../../lib/webhooks/dynamodb-membership-members.ts';
import { dynamodbWebhookIntegrations } from '../../../lib/webhooks/dynamodb-webhook-integrations.ts';
import type { MembershipMember } from '../../../lib/webhooks/membership-state.ts';
import { accountForPathSecret } from '../../../lib/webhooks/webhook-integrations.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const id = () => crypto.randomUUID();

/** Accounts the webhooks' stores are tested without: none is closed. */
const noAccounts = { getAccount: async () => undefined };

describe('webhook integrations', () => {
  it('finds the account by its secret, and after a rotation only by the new one', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const accountId = id();
    const first = await store.ensure(accountId);
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await accountForPathSecret({ integrations: store, accounts: noAccounts }, first.secret)).accountId).toBe(accountId);

    const rotated = await store.rotate(accountId);
    expect(rotated.secret).not.toBe(first.secret);
    expect(rotated.rotatedAt).toEqual(expect.any(String));
    expect((await accountForPathSecret({ integrations: store, accounts: noAccounts }, rotated.secret)).accountId).toBe(accountId);
    await expect(accountForPathSecret({ integrations: store, accounts: noAccounts }, first.secret)).rejects.toMatchObject({ code: 'not_found' });
    const old = (await d.db.send(new GetCommand({ TableName: d.tables.webhook_secrets, Key: { secret_hash: hashSecret(first.secret) } }))).Item!;
    expect(old).toMatchObject({ status: 'revoked', account_id: accountId });
    // Onboarding's ensure keeps the rotated secret.
    await dynamodbIntegrations(d).ensure(accountId);
    expect((await store.get(accountId))!.secret).toBe(rotated.secret);
  });

  it('finds the account and its signing keys from the path secret in one read', async () => {
    const calls: string[] = [];
    const db = { send: (command: { constructor: { name: string } }) => (calls.push(command.constructor.name), d.db.send(command as never)) } as unknown as typeof d.db;
    const store = dynamodbWebhookIntegrations({ ...d, db });
    const accountId = id();
    const { secret } = await store.ensure(accountId);
    await store.setSigningKeys(accountId, { calendly: 'k1' });
    calls.length = 0;
    expect(await accountForPathSecret({ integrations: store, accounts: noAccounts }, secret)).toMatchObject({ accountId, signingKeys: { calendly: 'k1' } });
    expect(calls).toEqual(['GetCommand']);
  });

  it('answers the same 404 for unknown, truncated, padded and wrong secrets of the right length', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const { secret } = await store.ensure(id());
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const presented of [wrong, secret.slice(0, 42), `${secret}x`, '', undefined, 'x'.repeat(43), `${secret.slice(0, 42)}/`]) {
      await expect(accountForPathSecret({ integrations: store, accounts: noAccounts }, presented)).rejects.toMatchObject({ code: 'not_found', message: 'There is no webhook at this address' });
    }
  });

  it('leaves no stray way in when a rotation is interrupted: the old secret works until the next settings read finishes the rotation', async () => {
    const accountId = id();
    const store = dynamodbWebhookIntegrations(d);
    const first = await store.ensure(accountId);
    await store.setSigningKeys(accountId, { calendly: 'k1' });
    // The Lambda dies right after the row names the next secret, before the old one is revoked.
    const puts: string[] = [];
    const dying = {
      send: (command: { constructor: { name: string }; input: { TableName?: string; Item?: { secret_hash?: string }; ReturnValues?: string } }) => {
        if (command.input.Item?.secret_hash) puts.push(command.input.Item.secret_hash);
        if (command.input.TableName === d.tables.webhook_secrets && command.input.ReturnValues === 'ALL_NEW') return Promise.reject(new Error('Task timed out'));
        return d.db.send(command as never);
      },
    } as unknown as typeof d.db;
    await expect(dynamodbWebhookIntegrations({ ...d, db: dying }).rotate(accountId)).rejects.toThrow('Task timed out');
    const row = (await d.db.send(new GetCommand({ TableName: d.tables.integrations, Key: { account_id: accountId } }))).Item!;
    expect(hashSecret(row.next_secret)).toBe(puts[0]);
    // The new entry opens nothing yet; the old secret still does, with its keys.
    await expect(accountForPathSecret({ integrations: store, accounts: noAccounts }, row.next_secret)).rejects.toMatchObject({ code: 'not_found' });
    expect(await accountForPathSecret({ integrations: store, accounts: noAccounts }, first.secret)).toEqual({ accountId, signingKeys: { calendly: 'k1' } });

    // Reading the settings finishes the rotation: the owner is shown the new secret, which now works, with the keys.
    const settled = (await store.get(accountId))!;
    expect(settled.secret).toBe(row.next_secret);
    expect(await accountForPathSecret({ integrations: store, accounts: noAccounts }, settled.secret)).toEqual({ accountId, signingKeys: { calendly: 'k1' } });
    await expect(accountForPathSecret({ integrations: store, accounts: noAccounts }, first.secret)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('never opens the entry of a rotation that lost to another', async () => {
    const accountId = id();
    const store = dynamodbWebhookIntegrations(d);
    await store.ensure(accountId);
    const puts: string[] = [];
    const recording = {
      send: (command: { input: { Item?: { secret_hash?: string } } }) => {
        if (command.input.Item?.secret_hash) puts.push(command.input.Item.secret_hash);
        return d.db.send(command as never);
      },
    } as unknown as typeof d.db;
    const racing = dynamodbWebhookIntegrations({ ...d, db: recording });
    await Promise.allSettled(Array.from({ length: 4 }, () => racing.rotate(accountId)));
    const current = hashSecret((await store.get(accountId))!.secret);
    expect(puts).toContain(current);
    for (const hash of puts.filter((h) => h !== current)) expect(await store.inboundFor(hash)).toBeUndefined();
  });

  it('keeps every signing key set while rotations run, on whichever secret is current', async () => {
    const store = dynamodbWebhookIntegrations(d);
    const accountId = id();
    await store.ensure(accountId);
    const results = await Promise.allSettled([
      store.rotate(accountId),
      store.setSigningKeys(accountId, { calendly: 'k1' }),
      store.rotate(accountId),
      store.setSigningKeys(accountId, { calcom: 'k2' }),
      store.rotate(accountId),
    ]);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'rotation_in_progress' });
    const expected = { ...(results[1]!.status === 'fulfilled' ? { calendly: 'k1' } : {}), ...(results[3]!.status === 'fulfilled' ? { calcom: 'k2' } : {}) };
    const current = (await store.get(accountId))!;
    expect(current.signingKeys).toEqual(expected);
    expect((await accountForPathSecret({ integrations: store, accounts: noAccounts }, current.secret)).signingKeys).toEqual(expected);
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
      if (r.status === 'fulfilled' && r.value.secret !== current) await expect(accountForPathSecret({ integrations: store, accounts: noAccounts }, r.value.secret)).rejects.toMatchObject({ code: 'not_found' });
    }
    await expect(accountForPathSecret({ integrations: store, accounts: noAccounts }, first.secret)).rejects.toMatchObject({ code: 'not_found' });
    expect((await accountForPathSecret({ integrations: store, accounts: noAccounts }, current)).accountId).toBe(accountId);
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
    const read = (await store.get('acct', email))!;
    expect(read.membership_version).toBe(1);
    const paying = { ...read, membership: { ...read.membership!, paying: true } };
    expect(await store.save(paying, {}, false)).toBe(true);
    // A writer holding the old version loses.
    expect(await store.save({ ...read, membership: { ...read.membership!, status: 'deleted' as const } }, { status: 'removed' }, false)).toBe(false);
    expect(await store.get('acct', email)).toMatchObject({ status: 'active', membership_version: 2, membership: { paying: true } });
    await store.markOnboardingStarted('acct', email, 'run-1');
    expect(await store.get('acct', email)).toMatchObject({ membership_version: 3, membership: { onboarding_run: 'run-1' } });
  });

  it('adds the membership to a member written by onboarding, keeping what onboarding wrote; an update never makes a record, in this account or another', async () => {
    const store = dynamodbMembershipMembers(d);
    const email = `${id()}@example.com`;
    const { dynamodbAccounts } = await import('../../../lib/accounts/dynamodb-accounts.ts');
    await dynamodbAccounts(d).claimMember({ email, account_id: 'acct', role: 'owner' });
    const owner = (await store.get('acct', email))!;
    expect(await store.save({ ...member(email), role: 'owner', status: owner.status }, {}, false)).toBe(true);
    expect(await store.get('acct', email)).toMatchObject({ role: 'owner', status: 'provisioning', membership: { member_id: 'mem_1' } });
    expect(await store.save({ ...member(email, 'other'), membership_version: 1 }, {}, false)).toBe(false);
    // Without a version read (a record that had no membership yet), an update of a record that is not there fails too.
    expect(await store.save(member(email, 'other'), {}, false)).toBe(false);
    expect(await store.get('other', email)).toBeUndefined();
  });
});

describe('booking tasks', () => {
  it('keep each booking\'s task as a provisioning ledger entry, written by one holder at a time', async () => {
    const tasks = dynamodbBookingTasks(d);
    const ref = `calcom#${id()}`;
    expect(await tasks.claim('acct', ref, 'exec-a')).toBe(true);
    expect(await tasks.claim('acct', ref, 'exec-b')).toBe(false);
    const record = { taskId: 't1', url: 'https://t/1', state: 'booked' as const, eventAt: '2026-01-01T00:00:00.000Z', startTime: '2026-02-01T10:00:00.000Z' };
    expect(await tasks.save('acct', ref, 'exec-a', record)).toBe(true);
    expect(await tasks.get('acct', ref)).toEqual(record);
    // The ledger sees the task id where every ledger entry keeps it.
    expect(await dynamodbLedger(d).get('acct', `booking#${ref}`)).toMatchObject({ id: 't1' });
    expect(await tasks.claim('acct', ref, 'exec-b')).toBe(true);
    expect(await tasks.save('acct', ref, 'exec-a', { ...record, state: 'cancelled' })).toBe(false);
    await tasks.release('acct', ref, 'exec-b');
    expect(await tasks.get('acct', ref)).toEqual(record);
  });
});
