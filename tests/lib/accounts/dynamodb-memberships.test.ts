// Memberships and invitations in DynamoDB (dynalite): the conditions that keep
// the last owner, and that let an invitation be used once.
import { describe, expect, it } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbInvitations } from '../../../lib/accounts/dynamodb-invitations.ts';
import { dynamodbMemberships } from '../../../lib/accounts/dynamodb-memberships.ts';
import type { Invitation } from '../../../lib/accounts/invitations.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const stores = () => ({
  accounts: dynamodbAccounts({ db: d.db, tables: d.tables }),
  memberships: dynamodbMemberships({ db: d.db, tables: d.tables }),
  invitations: dynamodbInvitations({ db: d.db, tables: d.tables }),
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

describe('invitations in DynamoDB', () => {
  const invitation = (overrides: Partial<Invitation> = {}): Invitation => ({
    id: crypto.randomUUID(),
    account_id: 'acct',
    email: `${crypto.randomUUID()}@example.com`,
    role: 'member',
    status: 'pending',
    invited_by: { kind: 'service' },
    created_at: new Date().toISOString(),
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  });

  it('are accepted by one of many at once, and never when lapsed or revoked', async () => {
    const { invitations } = stores();
    const open = invitation();
    await invitations.create(open);
    const accepted = await Promise.all(Array.from({ length: 10 }, (_, i) => invitations.accept(open.id, `user-${i}`, new Date())));
    expect(accepted.filter(Boolean)).toHaveLength(1);
    const lapsed = invitation({ expires_at: Math.floor(Date.now() / 1000) - 1 });
    await invitations.create(lapsed);
    expect(await invitations.accept(lapsed.id, 'u', new Date())).toBe(false);
    const revoked = invitation();
    await invitations.create(revoked);
    expect(await invitations.revoke(revoked.id, 'owner', new Date())).toBe(true);
    expect(await invitations.accept(revoked.id, 'u', new Date())).toBe(false);
    expect(await invitations.revoke(open.id, 'owner', new Date())).toBe(false);
  });

  it('are listed per account and per address, newest first', async () => {
    const { invitations } = stores();
    const account = crypto.randomUUID();
    const first = invitation({ account_id: account, created_at: '2026-01-01T00:00:00.000Z' });
    const second = invitation({ account_id: account, email: first.email, created_at: '2026-01-02T00:00:00.000Z' });
    await invitations.create(first);
    await invitations.create(second);
    expect((await invitations.ofAccount(account)).map((i) => i.id)).toEqual([second.id, first.id]);
    expect((await invitations.toEmail(first.email)).map((i) => i.id)).toEqual([second.id, first.id]);
  });
});
