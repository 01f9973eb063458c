import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { copyMemberRecord, migrateMembers } from '../../../scripts/migrations/members.ts';
import { queryAll } from '../../../lib/store/dynamodb.ts';
import { mergeMembershipRecords } from '../../../lib/webhooks/membership-state.ts';
import { useDynamo } from '../../support/dynamo.ts';

// The local stage's names, so that the script itself can be run against this dynalite.
const d = useDynamo('agency-backend-local-');
/** The address's records through the table's byEmail index, which needs the creation time a copied row must have. */
const inIndex = (email: string) =>
  queryAll(d.db, { TableName: d.tables.account_members, IndexName: 'byEmail', KeyConditionExpression: 'email = :e', ExpressionAttributeValues: { ':e': email } });
const legacy = 'agency-backend-local-members';

beforeAll(async () => {
  // The table as it was until 2026-11: one record per e-mail address.
  await d.client.send(
    new CreateTableCommand({
      TableName: legacy,
      AttributeDefinitions: [{ AttributeName: 'email', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'email', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});

describe('copying the e-mail-keyed member records into per-account records', () => {
  it('makes each account’s record, keeps what the new code wrote since, fills in the rest, and changes nothing when run again', async () => {
    const at = '2026-10-01T00:00:00.000Z';
    const owner = { email: 'ann@acme.example', account_id: 'acct-a', role: 'owner', status: 'active', storage_link: 'https://l/a', storage_path: '/Clients/acme', created_at: at, updated_at: at };
    const synced = {
      email: 'bo@acme.example',
      account_id: 'acct-a',
      role: 'member',
      status: 'active',
      membership: { provider: 'memberstack', member_id: 'mem_bo', status: 'active', plans: {}, paying: false },
      membership_version: 3,
      created_at: at,
      updated_at: at,
    };
    const broken = { email: 'nobody@acme.example', role: 'member', status: 'active' };
    for (const Item of [owner, synced, broken]) await d.db.send(new PutCommand({ TableName: legacy, Item }));
    // Since the deploy, an onboarding wrote its own record of Ann in acct-a.
    const accounts = dynamodbAccounts(d);
    await accounts.claimMember({ email: 'ann@acme.example', account_id: 'acct-a', role: 'owner' });

    const counts = await migrateMembers(d.db, { from: legacy, to: d.tables.account_members }, mergeMembershipRecords, { pageSize: 2 });
    expect(counts).toEqual({ created: 1, merged: 1, unchanged: 0, 'left-alone': 1, failed: 0 });
    expect(await accounts.getMember('acct-a', 'bo@acme.example')).toEqual(synced);
    // The new record's own values stand (status); the older creation time and the storage link come from the old row.
    expect(await accounts.getMember('acct-a', 'ann@acme.example')).toMatchObject({
      role: 'owner',
      status: 'provisioning',
      created_at: at,
      storage_link: 'https://l/a',
      storage_path: '/Clients/acme',
    });

    const before = (await d.db.send(new GetCommand({ TableName: d.tables.account_members, Key: { account_id: 'acct-a', email: 'ann@acme.example' } }))).Item;
    expect(await migrateMembers(d.db, { from: legacy, to: d.tables.account_members }, mergeMembershipRecords)).toEqual({ created: 0, merged: 0, unchanged: 2, 'left-alone': 1, failed: 0 });
    expect((await d.db.send(new GetCommand({ TableName: d.tables.account_members, Key: { account_id: 'acct-a', email: 'ann@acme.example' } }))).Item).toEqual(before);
    expect(await accounts.getMember('acct-a', 'bo@acme.example')).toEqual(synced);
  });

  it('runs as `npm run migrate:members` does, printing what it did', async () => {
    await d.db.send(new PutCommand({ TableName: legacy, Item: { email: 'cy@else.example', account_id: 'acct-c', role: 'owner', status: 'active', created_at: 'x', updated_at: 'x' } }));
    // As from an operator's shell: no TABLE_PREFIX (the script names the stage's tables itself).
    const { TABLE_PREFIX: _, ...env } = process.env;
    const run = () => promisify(execFile)(process.execPath, ['scripts/migrations/migrate-members.ts', '--stage', 'local'], { env: { ...env, AWS_ENDPOINT_URL_DYNAMODB: d.endpoint } });
    const { stdout } = await run();
    expect(JSON.parse(stdout)).toMatchObject({ stage: 'local', from: legacy, to: d.tables.account_members, created: 1, 'left-alone': 1 });
    expect(await dynamodbAccounts(d).getMember('acct-c', 'cy@else.example')).toMatchObject({ role: 'owner', status: 'active' });
    expect(JSON.parse((await run()).stdout)).toMatchObject({ created: 0, merged: 0, 'left-alone': 1, failed: 0 });
  });

  it('keeps an owner an owner, and the membership history, when the sync wrote a fresh record of them before the copy', async () => {
    // Found by review: merging attribute by attribute kept the fresh record's role (member), its empty plans and its new
    // creation time: the owner was demoted, their payment and onboarding run forgotten, and onboarding, which then looked for the oldest owner record, found nobody.
    const email = `owner-${Date.now()}@acme.example`;
    const paid = { plan_id: 'pln_pro', status: 'ACTIVE', type: 'SUBSCRIPTION', active: true, at: 1_000 };
    const oldRow = {
      email,
      account_id: 'acct-o',
      role: 'owner',
      status: 'active',
      membership: { provider: 'memberstack', member_id: 'mem_o', status: 'active', profile_at: 900, custom_fields: { seats: 1 }, plans: { con_1: paid }, paying: true, onboarding_run: 'run-1' },
      membership_version: 4,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    };
    await d.db.send(new PutCommand({ TableName: legacy, Item: oldRow }));
    // In the minutes between the deploy and the copy, a member.updated (a profile edit) made a fresh record.
    const fresh = {
      email,
      account_id: 'acct-o',
      role: 'member',
      status: 'active',
      membership: { provider: 'memberstack', member_id: 'mem_o', status: 'active', profile_at: 5_000, custom_fields: { seats: 2 }, plans: {}, paying: false },
      membership_version: 1,
      created_at: '2026-11-27T10:00:00.000Z',
      updated_at: '2026-11-27T10:00:00.000Z',
    };
    await d.db.send(new PutCommand({ TableName: d.tables.account_members, Item: fresh }));

    expect(await copyMemberRecord(d.db, d.tables.account_members, oldRow, mergeMembershipRecords)).toBe('merged');
    const merged = await dynamodbAccounts(d).getMember('acct-o', email);
    expect(merged).toMatchObject({
      role: 'owner',
      created_at: '2026-01-01T00:00:00.000Z',
      membership: { profile_at: 5_000, custom_fields: { seats: 2 }, plans: { con_1: paid }, paying: true, onboarding_run: 'run-1' },
      membership_version: 5,
    });
    expect(await inIndex(email)).toEqual([expect.objectContaining({ account_id: 'acct-o' })]);
    expect(await copyMemberRecord(d.db, d.tables.account_members, oldRow, mergeMembershipRecords)).toBe('unchanged');
  });

  it('copies old rows as the code looks them up (a lower-cased address, a creation time for the index), and goes on past a row it cannot write', async () => {
    const odd = [
      { email: '  Mixed.Case@Acme.Example ', account_id: 'acct-m', role: 'owner', status: 'active', updated_at: '2026-02-02T00:00:00.000Z' },
      { email: 'numbered@acme.example', account_id: 'acct-m', role: 'member', status: 'active', created_at: 1_700_000_000 },
    ];
    const at = new Date('2026-11-27T12:00:00.000Z');
    expect(await copyMemberRecord(d.db, d.tables.account_members, odd[0]!, mergeMembershipRecords, () => at)).toBe('created');
    expect(await copyMemberRecord(d.db, d.tables.account_members, odd[1]!, mergeMembershipRecords, () => at)).toBe('created');
    const accounts = dynamodbAccounts(d);
    expect(await accounts.getMember('acct-m', 'mixed.case@acme.example')).toMatchObject({ role: 'owner', created_at: '2026-02-02T00:00:00.000Z' });
    expect(await inIndex('mixed.case@acme.example')).toEqual([expect.objectContaining({ account_id: 'acct-m' })]);
    expect(await accounts.getMember('acct-m', 'numbered@acme.example')).toMatchObject({ created_at: '2026-11-27T12:00:00.000Z' });

    const failures: unknown[] = [];
    const counts = await migrateMembers(d.db, { from: legacy, to: 'agency-backend-local-no-such-table' }, mergeMembershipRecords, { onFailure: (row) => failures.push(row.email) });
    expect(counts.failed).toBeGreaterThan(0);
    expect(failures).toHaveLength(counts.failed);
  });
});
