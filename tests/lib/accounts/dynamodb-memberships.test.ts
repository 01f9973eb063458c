// Memberships in DynamoDB (dynalite): the conditions that keep the last owner.
import { describe, expect, it } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbMemberships } from '../../../lib/accounts/dynamodb-memberships.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const stores = () => ({
  accounts: dynamodbAccounts({ db: d.db, tables: d.tables }),
  memberships: dynamodbMemberships({ db: d.db, tables: d.tables }),
});

async function accountWithOwners(n: number) {
  const { accounts, memberships } = stores();
  const accountId = crypto.randomUUID();
  await accounts.saveAccountDetails(accountId, { company_name: 'Acme' });
  const owners = Array.from({ length: n }, () => crypto.randomUUID());
  for (const userId of owners) await memberships.join({ accountId, userId, email: `${userId}@example.com`, role: 'owner', via: 'created' });
  return { accountId, owners };
}

describe('memberships in DynamoDB', () => {
  it('find a membership by account, by user and by e-mail; joining again changes nothing', async () => {
    const { memberships } = stores();
    const { accountId, owners } = await accountWithOwners(1);
    const userId = owners[0]!;
    expect(await memberships.get(accountId, userId)).toMatchObject({ role: 'owner', status: 'active' });
    expect((await memberships.ofUser(userId)).map((m) => m.account_id)).toEqual([accountId]);
    expect((await memberships.ofEmail(`${userId}@example.com`)).map((m) => m.account_id)).toEqual([accountId]);
    expect((await memberships.join({ accountId, userId, email: 'x@example.com', role: 'member', via: 'invitation' })).joined).toBe(false);
    expect(await memberships.get(accountId, userId)).toMatchObject({ role: 'owner', email: `${userId}@example.com` });
  });

  it('keep the last owner when two owners demote themselves, and when ten remove one another, all at once', async () => {
    const { memberships, accounts } = stores();
    const pair = await accountWithOwners(2);
    const changes = await Promise.all(pair.owners.map((u) => memberships.setRole(pair.accountId, u, 'owner', 'member')));
    expect(changes.sort()).toEqual(['changed', 'last-owner']);
    const ten = await accountWithOwners(10);
    const removals = await Promise.all(ten.owners.map((u) => memberships.remove(ten.accountId, u, 'owner')));
    expect(removals.filter((c) => c === 'changed')).toHaveLength(9);
    expect((await memberships.ofAccount(ten.accountId)).filter((m) => m.status === 'active' && m.role === 'owner')).toHaveLength(1);
    expect(await accounts.getAccount(ten.accountId)).toMatchObject({ owner_count: 1 });
  });

  it('take a removed member back in when they join again', async () => {
    const { memberships } = stores();
    const { accountId } = await accountWithOwners(1);
    const userId = crypto.randomUUID();
    await memberships.join({ accountId, userId, email: 'bo@example.com', role: 'member', via: 'invitation' });
    expect(await memberships.remove(accountId, userId, 'member')).toBe('changed');
    expect(await memberships.remove(accountId, userId, 'member')).toBe('not-member');
    expect((await memberships.join({ accountId, userId, email: 'bo@example.com', role: 'admin', via: 'invitation' })).joined).toBe(true);
    expect(await memberships.get(accountId, userId)).toMatchObject({ role: 'admin', status: 'active' });
  });
});
