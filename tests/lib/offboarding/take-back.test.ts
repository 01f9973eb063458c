// The offboarding's take-back steps against the vendor fakes, and the
// onboarding steps that restore what they archived when the account reopens.
import { beforeEach, describe, expect, it } from 'vitest';
import { archiveStorageTree } from '../../../lib/offboarding/steps/archive-storage-tree.ts';
import { archiveTaskTool } from '../../../lib/offboarding/steps/archive-task-tool.ts';
import { markCrmLeadFormer } from '../../../lib/offboarding/steps/mark-crm-lead-former.ts';
import { postClosingNotice } from '../../../lib/offboarding/steps/post-closing-notice.ts';
import { sendClosingEmails } from '../../../lib/offboarding/steps/send-closing-emails.ts';
import { provisionStorageTree } from '../../../lib/onboarding/steps/provision-storage-tree.ts';
import { STORAGE_FOLDERS } from '../../../lib/provisioning/storage-tree.ts';
import { PROJECT_TEMPLATE, provisionTaskTool } from '../../../lib/onboarding/steps/provision-task-tool.ts';
import type { StepInput } from '../../../lib/provisioning/integration-step.ts';
import { fakeMemberships } from '../../support/account-fakes.ts';
import { fakeAccounts, fakeChat, fakeCrm, fakeLedger, fakeMailer, fakeStorage, fakeTaskTool } from '../../support/fakes.ts';
import { ACCOUNT, seedAccount, T0 } from './support.ts';

const onboarding: StepInput = { accountId: ACCOUNT, email: 'ann@acme.example', runId: 'run-onboarding', portalSlug: 'acme' };
const offboarding: StepInput = { ...onboarding, runId: 'run-offboarding' };
const reopened: StepInput = { ...onboarding, runId: 'run-reopened' };
const TASKS = PROJECT_TEMPLATE.flatMap((l) => l.tasks).length;

let accounts: ReturnType<typeof fakeAccounts>;
let ledger: ReturnType<typeof fakeLedger>;
beforeEach(async () => {
  accounts = fakeAccounts();
  ledger = fakeLedger({ now: () => T0 });
  await seedAccount(accounts, {
    offboarding: { run_id: offboarding.runId, trigger: 'request', reason: 'Budget cut', requested_by: 'user-owner', requested_at: T0.toISOString(), not_before: T0.toISOString() },
  });
  await accounts.store.claimMember({ email: 'ann@acme.example', account_id: ACCOUNT, role: 'owner' });
  await accounts.store.claimMember({ email: 'bob@acme.example', account_id: ACCOUNT, role: 'member' });
});

/** The account closed, then reopened: onboarded again. */
const reopen = () => accounts.accounts.set(ACCOUNT, { ...accounts.accounts.get(ACCOUNT)!, status: 'provisioning', offboarding: undefined });

describe('the task tool taken back, and restored on reopening', () => {
  it("archives every task of the client's folder, records it, and a reopening restores them without duplicates", async () => {
    const taskTool = fakeTaskTool();
    await provisionTaskTool({ taskTool, ledger, accounts: accounts.store }, onboarding);
    // Another client's folder, which stays as it is.
    const other = await taskTool.ensureList((await taskTool.ensureFolder('Globex (globex)')).id, 'Onboarding');
    const theirs = await taskTool.createTask(other.id, { name: 'Kick-off call', description: '' });
    const ours = () => [...taskTool.tasks.values()].filter((t) => t.id !== theirs.id);

    const archived = await archiveTaskTool({ taskTool, ledger, now: () => T0 }, offboarding);
    const folderId = (await ledger.get<{ id: string }>(ACCOUNT, 'clickup#folder'))!.id;
    expect(archived).toEqual({ outcome: 'success', details: { folder: folderId, archivedTasks: TASKS } });
    expect(ours()).toHaveLength(TASKS);
    expect(ours().every((t) => t.archived === true)).toBe(true);
    expect(taskTool.tasks.get(theirs.id)!.archived).toBeUndefined();
    expect(await ledger.get(ACCOUNT, 'clickup#archived')).toEqual({ folderId, archivedAt: T0.toISOString(), runId: offboarding.runId });

    reopen();
    const restored = await provisionTaskTool({ taskTool, ledger, accounts: accounts.store }, reopened);
    expect(restored.details).toMatchObject({ folderId, restoredTasks: TASKS });
    expect(ours()).toHaveLength(TASKS);
    expect(ours().every((t) => t.archived === false)).toBe(true);
    expect(taskTool.folders.size).toBe(2);
    expect(taskTool.lists.size).toBe(PROJECT_TEMPLATE.length + 1);
    expect(await ledger.get(ACCOUNT, 'clickup#archived')).toMatchObject({ folderId, restored: true });

    const again = await provisionTaskTool({ taskTool, ledger, accounts: accounts.store }, reopened);
    expect(again.details).not.toHaveProperty('restoredTasks');
    expect(ours()).toHaveLength(TASKS);
  });

  it('archives them again when the reopened account leaves once more', async () => {
    const taskTool = fakeTaskTool();
    await provisionTaskTool({ taskTool, ledger, accounts: accounts.store }, onboarding);
    await archiveTaskTool({ taskTool, ledger }, offboarding);
    reopen();
    await provisionTaskTool({ taskTool, ledger, accounts: accounts.store }, reopened);
    expect((await archiveTaskTool({ taskTool, ledger }, { ...offboarding, runId: 'run-offboarding-2' })).details).toMatchObject({ archivedTasks: TASKS });
    expect([...taskTool.tasks.values()].every((t) => t.archived)).toBe(true);
    expect(await ledger.get(ACCOUNT, 'clickup#archived')).not.toHaveProperty('restored');
  });

  it('is skipped when onboarding made no folder, or ClickUp is not configured', async () => {
    expect((await archiveTaskTool({ taskTool: fakeTaskTool(), ledger }, offboarding)).outcome).toBe('skipped');
    expect((await archiveTaskTool({ taskTool: null, ledger }, offboarding)).outcome).toBe('skipped');
    expect(await ledger.get(ACCOUNT, 'clickup#archived')).toBeUndefined();
  });
});

describe('storage taken back, and restored on reopening', () => {
  const root = '/Clients';
  const archivePath = '/Former clients';
  const tree = (base: string) => [base, ...STORAGE_FOLDERS.map((f) => `${base}/${f}`)].sort();

  it("revokes every link (the account's and its members'), forgets them, moves the folder to the archive, and is the same on a retry", async () => {
    const storage = fakeStorage();
    await provisionStorageTree({ storage, ledger, accounts: accounts.store, rootPath: root }, onboarding);
    await storage.writeFile('/Clients/acme/02 Brand Assets/logo.svg', '<svg/>');
    const link = accounts.accounts.get(ACCOUNT)!.storage_link!;
    // A member record still holding an older link to the folder.
    accounts.members.put({ ...accounts.members.of(ACCOUNT, 'bob@acme.example')!, storage_link: 'https://share.example/older' });

    const deps = { storage, ledger, accounts: accounts.store, lifecycle: accounts.lifecycle, archivePath, now: () => T0 };
    const result = await archiveStorageTree(deps, offboarding);
    expect(result).toEqual({ outcome: 'success', details: { revokedLinks: 2, archivedTo: '/Former clients/acme' } });
    const afterFirst = { folders: [...storage.folders].sort(), files: [...storage.files.keys()], revoked: [...storage.revoked].sort() };
    expect(afterFirst).toEqual({ folders: tree('/Former clients/acme'), files: ['/Former clients/acme/02 Brand Assets/logo.svg'], revoked: ['https://share.example/older', link].sort() });
    expect(storage.links.size).toBe(0);
    expect(accounts.accounts.get(ACCOUNT)).not.toHaveProperty('storage_link');
    for (const m of accounts.members.ofAccount(ACCOUNT)) expect(m).not.toHaveProperty('storage_link');
    const archived = { from: '/Clients/acme', to: '/Former clients/acme', archivedAt: T0.toISOString(), runId: offboarding.runId };
    expect(await ledger.get(ACCOUNT, 'dropbox#archived')).toEqual(archived);

    // The step retried (its answer lost): nothing moves again, nothing fails.
    expect((await archiveStorageTree({ ...deps, now: () => new Date(T0.getTime() + 60_000) }, offboarding)).outcome).toBe('success');
    expect({ folders: [...storage.folders].sort(), files: [...storage.files.keys()], revoked: [...storage.revoked].sort() }).toEqual(afterFirst);
    expect(await ledger.get(ACCOUNT, 'dropbox#archived')).toEqual(archived);
  });

  it('moves the folder back on reopening, with a new link on the account and its members', async () => {
    const storage = fakeStorage();
    const provisionDeps = { storage, ledger, accounts: accounts.store, rootPath: root };
    await provisionStorageTree(provisionDeps, onboarding);
    const old = accounts.accounts.get(ACCOUNT)!.storage_link!;
    await archiveStorageTree({ storage, ledger, accounts: accounts.store, lifecycle: accounts.lifecycle, archivePath }, offboarding);

    reopen();
    const result = await provisionStorageTree(provisionDeps, reopened);
    const link = accounts.accounts.get(ACCOUNT)!.storage_link!;
    expect(link).toBeDefined();
    expect(link).not.toBe(old);
    expect(storage.revoked.has(link)).toBe(false);
    expect(result).toEqual({ outcome: 'success', details: { path: '/Clients/acme', link, subfolders: STORAGE_FOLDERS.length } });
    expect([...storage.folders].sort()).toEqual(tree('/Clients/acme'));
    expect(storage.links.get('/Clients/acme')).toBe(link);
    for (const m of accounts.members.ofAccount(ACCOUNT)) expect(m).toMatchObject({ storage_link: link, storage_path: '/Clients/acme' });
    expect(await ledger.get(ACCOUNT, 'dropbox#archived')).toMatchObject({ restored: true });

    // A second call (a retry) makes nothing more.
    await provisionStorageTree(provisionDeps, reopened);
    expect(storage.links.size).toBe(1);
    expect(accounts.accounts.get(ACCOUNT)!.storage_link).toBe(link);
  });

  it('is skipped when onboarding made no folder, or Dropbox is not configured', async () => {
    const deps = { ledger, accounts: accounts.store, lifecycle: accounts.lifecycle, archivePath };
    expect((await archiveStorageTree({ ...deps, storage: fakeStorage() }, offboarding)).outcome).toBe('skipped');
    expect((await archiveStorageTree({ ...deps, storage: null }, offboarding)).outcome).toBe('skipped');
  });
});

describe("the CRM lead marked as a former client's", () => {
  const seedLead = async (crm: ReturnType<typeof fakeCrm>) => {
    const id = await crm.createLead({ companyName: 'Acme', contact: { email: 'ann@acme.example', name: 'Ann' } });
    await ledger.put(ACCOUNT, 'close#lead', { id });
    return id;
  };

  it('leaves the lead as it is without a former-client status, and sets it with one', async () => {
    const crm = fakeCrm();
    const id = await seedLead(crm);
    expect(await markCrmLeadFormer({ crm, ledger }, offboarding)).toEqual({ outcome: 'skipped', details: { reason: expect.stringContaining('CLOSE_FORMER_CLIENT_STATUS_ID') } });
    expect(crm.leads.get(id)!.statusId).toBeUndefined();
    expect(await markCrmLeadFormer({ crm, ledger, formerStatusId: 'stat_former' }, offboarding)).toEqual({ outcome: 'success', details: { leadId: id, statusId: 'stat_former' } });
    expect(crm.leads.get(id)!.statusId).toBe('stat_former');
  });

  it('is skipped when onboarding found or made no lead', async () => {
    const crm = fakeCrm();
    expect((await markCrmLeadFormer({ crm, ledger, formerStatusId: 'stat_former' }, offboarding)).outcome).toBe('skipped');
  });
});

describe('the closing e-mails', () => {
  let memberships: ReturnType<typeof fakeMemberships>;
  beforeEach(async () => {
    memberships = fakeMemberships();
    const join = (userId: string, email: string, role: 'owner' | 'member') => memberships.join({ accountId: ACCOUNT, userId, email, role, via: 'invitation' });
    await join('u-ann', 'ann@acme.example', 'owner');
    await join('u-cat', 'cat@acme.example', 'owner');
    await join('u-bob', 'bob@acme.example', 'member');
    await join('u-dan', 'dan@acme.example', 'owner');
    await join('u-eve', 'eve@acme.example', 'owner');
    await memberships.remove(ACCOUNT, 'u-dan', 'owner');
  });

  it('writes to each active owner once per run, with the reason, whatever the retries', async () => {
    const mailer = fakeMailer();
    const deps = { mailer, accounts: accounts.store, memberships, portalUrl: 'https://portal.test', replyTo: 'team@agency.example' };
    expect(await sendClosingEmails(deps, offboarding)).toEqual({ outcome: 'success', details: { sent: ['account-closed'], recipients: 3 } });
    await sendClosingEmails(deps, offboarding);
    expect(mailer.sent.map((e) => e.to).sort()).toEqual(['ann@acme.example', 'cat@acme.example', 'eve@acme.example']);
    expect(new Set(mailer.sent.map((e) => e.idempotencyKey)).size).toBe(3);
    for (const e of mailer.sent) expect(e).toMatchObject({ kind: 'account-closed', replyTo: 'team@agency.example', text: expect.stringContaining('Budget cut') });

    // Another run (the account closed again after a reopening) writes again.
    await sendClosingEmails(deps, { ...offboarding, runId: 'run-offboarding-2' });
    expect(mailer.sent).toHaveLength(6);
  });

  it("writes to the account's contact address when no owner has signed up, and skips an account with neither", async () => {
    const mailer = fakeMailer();
    const deps = { mailer, accounts: accounts.store, memberships: fakeMemberships(), portalUrl: 'https://portal.test' };
    expect((await sendClosingEmails(deps, offboarding)).details).toMatchObject({ recipients: 1 });
    expect(mailer.sent.map((e) => e.to)).toEqual(['ann@acme.example']);

    accounts.accounts.set(ACCOUNT, { ...accounts.accounts.get(ACCOUNT)!, contact_email: undefined });
    expect((await sendClosingEmails(deps, { ...offboarding, runId: 'run-2' })).outcome).toBe('skipped');
    expect(mailer.sent).toHaveLength(1);
  });
});

describe("the team's closing notice", () => {
  it('is posted once per run, with who asked and why', async () => {
    const chat = fakeChat();
    const deps = { chat, ledger, accounts: accounts.store };
    await postClosingNotice(deps, offboarding);
    await postClosingNotice(deps, offboarding);
    expect(chat.posted).toHaveLength(1);
    expect(chat.posted[0]!.text).toContain('Budget cut');
    expect(chat.posted[0]!.text).toContain('user-owner');
  });
});
