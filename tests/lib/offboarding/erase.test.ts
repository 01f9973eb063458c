import { beforeEach, describe, expect, it } from 'vitest';
import { ERASED_FIELDS } from '../../../lib/accounts/lifecycle.ts';
import { Conflict, VendorError } from '../../../lib/errors.ts';
import { eraseAccount, type ErasureDeps, type PersonalRecords } from '../../../lib/offboarding/erase.ts';
import { fakeMemberships } from '../../support/account-fakes.ts';
import { FakeIdentity } from '../../support/auth-fakes.ts';
import { fakeAccounts, fakeCrm, fakeLedger, fakeStorage, fakeTaskTool } from '../../support/fakes.ts';
import { ACCOUNT, seedAccount, T0 } from './support.ts';

/** Our own records of the account's people, in memory: who they are, and whether they were erased. */
function fakeRecords(memberships: ReturnType<typeof fakeMemberships>, bookingTasks: string[]) {
  const erased: string[] = [];
  const records: PersonalRecords & { erased: string[] } = {
    erased,
    async peopleOf(accountId) {
      const mine = [...memberships.rows.values()].filter((m) => m.account_id === accountId);
      return { emails: mine.map((m) => m.email), names: ['Ann Smith'], userIds: mine.map((m) => m.user_id) };
    },
    bookingTaskIds: async () => bookingTasks,
    activeMembershipsElsewhere: async (userId, accountId) =>
      [...memberships.rows.values()].filter((m) => m.user_id === userId && m.account_id !== accountId && m.status === 'active').length,
    async eraseRecords(account) {
      erased.push(account.id);
      return { account_members: 2, memberships: 3 };
    },
  };
  return records;
}

let accounts: ReturnType<typeof fakeAccounts>;
let crm: ReturnType<typeof fakeCrm>;
let storage: ReturnType<typeof fakeStorage> & { deleted: string[] };
let taskTool: ReturnType<typeof fakeTaskTool>;
let identity: FakeIdentity;
/** The sign-in users of Ann, Cat and Dan. */
let ann: string, cat: string, dan: string;
let records: ReturnType<typeof fakeRecords>;
let deps: ErasureDeps;
let leadId: string;
let bookingTask: string;
const at = new Date(T0.getTime() + 86_400_000);

beforeEach(async () => {
  accounts = fakeAccounts();
  crm = fakeCrm();
  taskTool = fakeTaskTool();
  const ledger = fakeLedger();
  const base = fakeStorage();
  const deleted: string[] = [];
  storage = { ...base, deleted, deleteFolder: async (path) => (deleted.push(path), base.deleteFolder(path)) };
  identity = new FakeIdentity();
  [ann, cat, dan] = ['ann', 'cat', 'dan'].map((name) => identity.addUser(`${name}@acme.example`, 'pw').id) as [string, string, string];

  await seedAccount(accounts, { status: 'closed', closed_at: T0.toISOString(), phone: '+1 555 0100', location: 'Berlin', stripe_customer_id: 'cus_1', storage_link: undefined });
  leadId = await crm.createLead({ companyName: 'Acme', contact: { email: 'ann@acme.example', name: 'Ann Smith' } });
  await crm.updateLead(leadId, { companyName: 'Acme', contact: { email: 'cat@acme.example' } });
  await ledger.put(ACCOUNT, 'close#lead', { id: leadId });
  await ledger.put(ACCOUNT, 'dropbox#tree', { path: '/Clients/acme' });
  await ledger.put(ACCOUNT, 'dropbox#archived', { from: '/Clients/acme', to: '/Former clients/acme', archivedAt: T0.toISOString(), runId: 'run-off' });
  await base.ensureFolders(['/Former clients/acme', '/Former clients/acme/03 Content', '/Former clients/globex']);
  const list = await taskTool.ensureList('f-bookings', 'Bookings');
  bookingTask = (await taskTool.createTask(list.id, { name: 'Call with Zoe Invitee', description: 'zoe@example.com' })).id;

  const memberships = fakeMemberships();
  const join = (accountId: string, userId: string, email: string, role: 'owner' | 'member') => memberships.join({ accountId, userId, email, role, via: 'invitation' });
  await join(ACCOUNT, ann, 'ann@acme.example', 'owner');
  await join(ACCOUNT, cat, 'cat@acme.example', 'member');
  await join(ACCOUNT, dan, 'dan@acme.example', 'member');
  // Cat works in another account too; Dan was removed from one.
  await join('acct-2', cat, 'cat@acme.example', 'owner');
  await join('acct-2', 'u-boss', 'boss@globex.example', 'owner');
  await join('acct-2', dan, 'dan@acme.example', 'member');
  await memberships.remove('acct-2', dan, 'member');
  records = fakeRecords(memberships, [bookingTask]);

  deps = { accounts: accounts.store, lifecycle: accounts.lifecycle, records, ledger, crm, storage, taskTool, identity, now: () => at };
});

const flaky = (failures: number): ErasureDeps['crm'] => ({
  ...crm,
  async deleteContacts(id) {
    if (failures-- > 0) throw new VendorError('close', 'close: delete contacts answered 503', { transient: true, status: 503, operation: 'delete contacts' });
    return crm.deleteContacts(id);
  },
});

describe('erasing a closed account', () => {
  for (const status of ['active', 'provisioning', 'offboarding'] as const) {
    it(`refuses an account that is ${status}, touching nothing`, async () => {
      accounts.accounts.set(ACCOUNT, { ...accounts.accounts.get(ACCOUNT)!, status });
      const refused = eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: true });
      await expect(refused).rejects.toBeInstanceOf(Conflict);
      await expect(refused).rejects.toMatchObject({ code: 'account_not_closed' });
      expect(crm.leads.get(leadId)!.contacts).toHaveLength(2);
      expect(storage.deleted).toEqual([]);
      expect(identity.deletionsAsked).toEqual([]);
      expect(records.erased).toEqual([]);
      expect(accounts.accounts.get(ACCOUNT)).toMatchObject({ status, company_name: 'Acme' });
    });
  }

  it("erases it at every vendor, keeps a user who belongs to another account, and strips the row to the audit record", async () => {
    const answer = await eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: true });
    expect(answer).toMatchObject({ complete: true, status: 'erased' });
    expect(crm.leads.get(leadId)).toMatchObject({ companyName: 'Acme', contacts: [] });
    expect(storage.deleted).toEqual(['/Former clients/acme']);
    expect([...storage.folders]).toEqual(['/Former clients/globex']);
    expect(taskTool.tasks.get(bookingTask)!.name).toBe('Call (details erased)');
    expect(identity.users.map((u) => u.id)).toEqual([cat]);
    expect(records.erased).toEqual([ACCOUNT]);

    const account = accounts.accounts.get(ACCOUNT)!;
    for (const field of ERASED_FIELDS) expect(account).not.toHaveProperty(field);
    expect(account).toMatchObject({ id: ACCOUNT, status: 'erased', stripe_customer_id: 'cus_1', closed_at: T0.toISOString() });
    expect(account.erasure).toEqual(answer.record);
    expect(answer.record).toMatchObject({ requested_by: 'admin-key', requested_at: at.toISOString(), erased_at: at.toISOString() });
    const outcomes = Object.fromEntries(Object.entries(answer.record.places).map(([place, p]) => [place, p.outcome]));
    expect(outcomes).toEqual({
      close: 'erased',
      dropbox: 'erased',
      clickup: 'erased',
      resend: 'kept',
      slack: 'kept',
      supabase: 'erased',
      'table:account_members': 'erased',
      'table:memberships': 'erased',
      'table:accounts': 'erased',
    });
    expect(answer.record.places.supabase!.detail).toBe('2 sign-in users deleted; 1 kept, as they belong to other accounts');
    // The audit record names nobody.
    expect(JSON.stringify(account)).not.toMatch(/ann@|cat@|Ann Smith|Zoe|Berlin|555/);
  });

  it('records a vendor that failed on the account, erases none of our records, and finishes on the next call without repeating what was done', async () => {
    deps.crm = flaky(1);
    const first = await eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: true });
    expect(first).toMatchObject({ complete: false, status: 'closed' });
    expect(first.record.places.close).toEqual({ outcome: 'failed', detail: 'close: delete contacts answered 503' });
    expect(records.erased).toEqual([]);
    const closed = accounts.accounts.get(ACCOUNT)!;
    expect(closed).toMatchObject({ status: 'closed', company_name: 'Acme', contact_email: 'ann@acme.example', erasure: first.record });
    expect(crm.leads.get(leadId)!.contacts).toHaveLength(2);
    // The other places went ahead.
    expect(storage.deleted).toEqual(['/Former clients/acme']);
    expect(identity.deletionsAsked.sort()).toEqual([ann, dan].sort());

    // The vendor recovers; the admin calls again, later.
    deps.now = () => new Date(at.getTime() + 3_600_000);
    const second = await eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: true });
    expect(second).toMatchObject({ complete: true, status: 'erased' });
    expect(second.record.places.close!.outcome).toBe('erased');
    expect(second.record.requested_at).toBe(at.toISOString());
    expect(crm.leads.get(leadId)!.contacts).toEqual([]);
    expect(storage.deleted).toEqual(['/Former clients/acme']);
    expect(identity.deletionsAsked.sort()).toEqual([ann, dan].sort());
    expect(records.erased).toEqual([ACCOUNT]);
    expect(accounts.accounts.get(ACCOUNT)).toMatchObject({ status: 'erased', erasure: second.record });
    expect(accounts.accounts.get(ACCOUNT)).not.toHaveProperty('company_name');
  });

  it("keeps the storage folder unless asked to delete it", async () => {
    const answer = await eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: false });
    expect(answer.complete).toBe(true);
    expect(answer.record.places.dropbox!.outcome).toBe('kept');
    expect(storage.deleted).toEqual([]);
    expect(storage.folders.has('/Former clients/acme')).toBe(true);
  });

  it('deletes the storage folder when a call that kept it failed elsewhere and the next call asks for it', async () => {
    deps.crm = flaky(1);
    expect((await eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: false })).record.places.dropbox!.outcome).toBe('kept');
    const second = await eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: true });
    expect(second.complete).toBe(true);
    expect(second.record.places.dropbox!.outcome).toBe('erased');
    expect(storage.deleted).toEqual(['/Former clients/acme']);
  });

  it('answers an erased account with its audit record, doing nothing again', async () => {
    const first = await eraseAccount(deps, ACCOUNT, { by: 'admin-key', storage: true });
    const again = await eraseAccount(deps, ACCOUNT, { by: 'someone-else', storage: true });
    expect(again).toEqual({ complete: true, status: 'erased', record: first.record });
    expect(identity.deletionsAsked).toHaveLength(2);
    expect(records.erased).toEqual([ACCOUNT]);
  });

  it('skips each vendor that is not configured, and still erases', async () => {
    const answer = await eraseAccount({ ...deps, crm: null, storage: null, taskTool: null }, ACCOUNT, { by: 'admin-key', storage: true });
    expect(answer.complete).toBe(true);
    expect(answer.record.places).toMatchObject({ close: { outcome: 'skipped' }, dropbox: { outcome: 'skipped' }, clickup: { outcome: 'skipped' } });
    expect(crm.leads.get(leadId)!.contacts).toHaveLength(2);
    expect(accounts.accounts.get(ACCOUNT)!.status).toBe('erased');
  });
});
