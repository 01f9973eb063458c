// The migration from member records to memberships, on dynalite, over rows in
// the shapes the code before memberships wrote: stopped mid-way, resumed, and
// run again from the start.
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbInvitations } from '../../../lib/accounts/dynamodb-invitations.ts';
import { dynamodbMemberships } from '../../../lib/accounts/dynamodb-memberships.ts';
import { migrateMemberships, type Checkpoint, type LegacyMemberRecord, type RecordPages } from '../../../scripts/migrations/memberships.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { fakeMailer, recordingLogger } from '../../support/fakes.ts';

const d = useDynamo();
const at = '2026-01-01T00:00:00.000Z';

function memoryCheckpoint(): Checkpoint & { state?: { after?: Record<string, unknown>; done?: boolean } } {
  const cp: Checkpoint & { state?: { after?: Record<string, unknown>; done?: boolean } } = {
    load: async () => cp.state,
    save: async (state) => {
      cp.state = state;
    },
  };
  return cp;
}

describe('migrating member records to memberships', () => {
  it('makes creators owners and synced people invitees, survives a stop mid-way, and changes nothing when run again', async () => {
    const { db, tables } = d;
    const t = crypto.randomUUID().slice(0, 8);
    const put = (TableName: string, Item: Record<string, unknown>) => db.send(new PutCommand({ TableName, Item }));
    const accountA = crypto.randomUUID();
    const accountB = crypto.randomUUID();
    for (const id of [accountA, accountB]) await put(tables.accounts, { id, status: 'active', company_name: `Co ${id.slice(0, 4)}`, created_at: at, updated_at: at });
    const verifiedOwner = { email: `ada-${t}@example.com`, account_id: accountA, role: 'owner', status: 'active', name: 'Ada', user_id: 'user-ada', created_at: at, updated_at: at };
    // Onboarded by the portal's backend: no user id on the record; Bea has since signed up and confirmed.
    const serviceOwner = { email: `bea-${t}@example.com`, account_id: accountB, role: 'owner', status: 'provisioning', created_at: at, updated_at: at };
    const synced = {
      email: `sid-${t}@example.com`,
      account_id: accountA,
      role: 'member',
      status: 'active',
      name: 'Sid',
      membership: { provider: 'memberstack', member_id: 'mem_1', status: 'active', plans: {}, paying: false },
      membership_version: 1,
      created_at: at,
      updated_at: at,
    };
    const neverSignedUp = { email: `cy-${t}@example.com`, account_id: accountB, role: 'member', status: 'active', membership: { provider: 'memberstack' }, created_at: at, updated_at: at };
    const removed = { ...synced, email: `rex-${t}@example.com`, status: 'removed' };
    const orphan = { email: `orphan-${t}@example.com`, account_id: crypto.randomUUID(), role: 'owner', status: 'active', created_at: at, updated_at: at };
    const rows = [verifiedOwner, serviceOwner, synced, neverSignedUp, removed, orphan];
    for (const row of rows) await put(tables.account_members, row);

    const accounts = dynamodbAccounts({ db, tables });
    const memberships = dynamodbMemberships({ db, tables });
    const invitations = dynamodbInvitations({ db, tables });
    const mailer = fakeMailer();
    const deps = {
      accounts,
      memberships,
      team: { accounts, memberships, invitations, mailer, portalUrl: 'https://portal.test' },
      confirmedUserIds: new Map([[serviceOwner.email, 'user-bea']]),
      log: recordingLogger(),
    };
    // This test's rows only, two per page; the second page fails once, as a crash would stop a run.
    const mine = rows.map((r) => r.email);
    const all = ((await db.send(new ScanCommand({ TableName: tables.account_members }))).Items ?? []).filter((r) => mine.includes(r.email as string)) as LegacyMemberRecord[];
    let failOnce = true;
    const pages: RecordPages = {
      async page(after) {
        const start = Number(after?.index ?? 0);
        if (start === 2 && failOnce) {
          failOnce = false;
          throw new Error('the Lambda timed out');
        }
        return { rows: all.slice(start, start + 2), ...(start + 2 < all.length ? { next: { index: start + 2 } } : {}) };
      },
    };
    const checkpoint = memoryCheckpoint();
    await expect(migrateMemberships(deps, pages, checkpoint)).rejects.toThrow('the Lambda timed out');
    expect(checkpoint.state).toEqual({ after: { index: 2 } });
    const resumed = await migrateMemberships(deps, pages, checkpoint);
    expect(checkpoint.state).toEqual({ done: true });
    expect(Object.values(resumed).reduce((a, b) => a + b, 0)).toBe(4);

    expect(await memberships.get(accountA, 'user-ada')).toMatchObject({ role: 'owner', status: 'active', joined_via: 'migration' });
    expect(await memberships.get(accountB, 'user-bea')).toMatchObject({ role: 'owner', status: 'active' });
    expect(await accounts.getAccount(accountA)).toMatchObject({ owner_count: 1 });
    // Synced people are invited, never made members.
    expect(await memberships.ofEmail(synced.email)).toEqual([]);
    const invited = async (email: string) => (await invitations.toEmail(email)).map((i) => ({ account: i.account_id, role: i.role, status: i.status, by: i.invited_by.kind }));
    expect(await invited(synced.email)).toEqual([{ account: accountA, role: 'member', status: 'pending', by: 'migration' }]);
    expect(await invited(neverSignedUp.email)).toEqual([{ account: accountB, role: 'member', status: 'pending', by: 'migration' }]);
    expect(await invited(removed.email)).toEqual([]);
    expect(await invited(orphan.email)).toEqual([]);

    // From the start again: nothing new.
    const again = await migrateMemberships(deps, pages, memoryCheckpoint());
    expect(again).toMatchObject({ 'owner-joined': 0, 'owner-invited': 0, 'member-invited': 0 });
    expect(await invited(synced.email)).toHaveLength(1);
    expect(mailer.sent.map((m) => m.to).sort()).toEqual([neverSignedUp.email, synced.email].sort());
  });
});
