import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { migrateMembers } from '../../../lib/accounts/migrate-members.ts';
import { useDynamo } from '../../support/dynamo.ts';

// The local stage's names, so that the script itself can be run against this dynalite.
const d = useDynamo('agency-backend-local-');
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

    const counts = await migrateMembers(d.db, { from: legacy, to: d.tables.account_members }, { pageSize: 2 });
    expect(counts).toEqual({ created: 1, merged: 1, 'left-alone': 1 });
    expect(await accounts.getMember('acct-a', 'bo@acme.example')).toEqual(synced);
    // The new record's own values stand (status, created_at); the storage link comes from the old row.
    expect(await accounts.getMember('acct-a', 'ann@acme.example')).toMatchObject({
      role: 'owner',
      status: 'provisioning',
      storage_link: 'https://l/a',
      storage_path: '/Clients/acme',
    });
    expect(await accounts.firstOwnerRecord('ann@acme.example')).toMatchObject({ account_id: 'acct-a' });

    const before = (await d.db.send(new GetCommand({ TableName: d.tables.account_members, Key: { account_id: 'acct-a', email: 'ann@acme.example' } }))).Item;
    expect(await migrateMembers(d.db, { from: legacy, to: d.tables.account_members })).toEqual({ created: 0, merged: 2, 'left-alone': 1 });
    expect((await d.db.send(new GetCommand({ TableName: d.tables.account_members, Key: { account_id: 'acct-a', email: 'ann@acme.example' } }))).Item).toEqual(before);
    expect(await accounts.getMember('acct-a', 'bo@acme.example')).toEqual(synced);
  });

  it('runs as `npm run migrate:members` does, printing what it did', async () => {
    await d.db.send(new PutCommand({ TableName: legacy, Item: { email: 'cy@else.example', account_id: 'acct-c', role: 'owner', status: 'active', created_at: 'x', updated_at: 'x' } }));
    // As from an operator's shell: no TABLE_PREFIX (the script names the stage's tables itself).
    const { TABLE_PREFIX: _, ...env } = process.env;
    const run = () => promisify(execFile)(process.execPath, ['scripts/migrate-members.ts', '--stage', 'local'], { env: { ...env, AWS_ENDPOINT_URL_DYNAMODB: d.endpoint } });
    const { stdout } = await run();
    expect(JSON.parse(stdout)).toMatchObject({ stage: 'local', from: legacy, to: d.tables.account_members, created: 1, 'left-alone': 1 });
    expect(await dynamodbAccounts(d).getMember('acct-c', 'cy@else.example')).toMatchObject({ role: 'owner', status: 'active' });
    expect(JSON.parse((await run()).stdout)).toMatchObject({ created: 0, merged: 3, 'left-alone': 1 });
  });
});
