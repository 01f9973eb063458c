import { beforeEach, describe, expect, it } from 'vitest';
import { ENHANCED_WORKFLOW } from '../../../lib/onboarding/outcomes.ts';
import { postChatNotices } from '../../../lib/onboarding/steps/post-chat-notices.ts';
import { provisionStorageTree } from '../../../lib/onboarding/steps/provision-storage-tree.ts';
import { STORAGE_FOLDERS } from '../../../lib/provisioning/storage-tree.ts';
import { PROJECT_TEMPLATE, provisionTaskTool } from '../../../lib/onboarding/steps/provision-task-tool.ts';
import { sendOnboardingEmails } from '../../../lib/onboarding/steps/send-onboarding-emails.ts';
import { addressIsAtDomain, syncCrmLead } from '../../../lib/onboarding/steps/sync-crm-lead.ts';
import type { StepInput } from '../../../lib/provisioning/integration-step.ts';
import type { Invitation } from '../../../lib/accounts/invitations.ts';
import { fakeInvitations } from '../../support/account-fakes.ts';
import { fakeAccounts, fakeChat, fakeCrm, fakeLedger, fakeMailer, fakeRuns, fakeStorage, fakeTaskTool } from '../../support/fakes.ts';

const input: StepInput = { accountId: 'acct-1', email: 'ann@acme.example', runId: 'run-1', portalSlug: 'acme' };
let accounts: ReturnType<typeof fakeAccounts>;
let ledger: ReturnType<typeof fakeLedger>;

beforeEach(async () => {
  accounts = fakeAccounts();
  ledger = fakeLedger();
  await accounts.store.saveAccountDetails('acct-1', { company_name: 'Acme', company_url: 'https://acme.example', company_domain: 'acme.example' });
  await accounts.store.claimMember({ email: 'ann@acme.example', account_id: 'acct-1', role: 'owner' });
});

describe('the task-tool step', () => {
  it('creates the folder, three lists and their starter tasks, and nothing again on a re-run', async () => {
    const taskTool = fakeTaskTool();
    const deps = { taskTool, ledger, accounts: accounts.store };
    const first = await provisionTaskTool(deps, input);
    const callsAfterFirst = taskTool.calls;
    const second = await provisionTaskTool(deps, input);
    expect(first.outcome).toBe('success');
    expect([...taskTool.folders.keys()]).toEqual(['Acme (acme)']);
    expect(taskTool.lists.size).toBe(3);
    expect(taskTool.tasks.size).toBe(PROJECT_TEMPLATE.flatMap((l) => l.tasks).length);
    expect(taskTool.calls).toBe(callsAfterFirst); // the ledger answered everything
    expect(second.details).toMatchObject({ lists: { onboarding: { ensured: 0 }, site: { ensured: 0 }, maintenance: { ensured: 0 } } });
  });

  it('is skipped, with the reason, when ClickUp is not configured', async () => {
    expect(await provisionTaskTool({ taskTool: null, ledger, accounts: accounts.store }, input)).toEqual({
      outcome: 'skipped',
      details: { reason: 'ClickUp is not configured in this deployment' },
    });
  });
});

describe('the storage step', () => {
  it('creates {root}/{slug} with ten subfolders and one shared link, stored on the members', async () => {
    const storage = fakeStorage();
    const deps = { storage, ledger, accounts: accounts.store, rootPath: '/Clients' };
    await provisionStorageTree(deps, input);
    await provisionStorageTree(deps, input);
    expect([...storage.folders].sort()).toEqual(['/Clients/acme', ...STORAGE_FOLDERS.map((f) => `/Clients/acme/${f}`)].sort());
    expect(STORAGE_FOLDERS).toHaveLength(10);
    expect(storage.links.size).toBe(1);
    expect(accounts.members.of('acct-1', 'ann@acme.example')).toMatchObject({ storage_link: 'https://share.example/1', storage_path: '/Clients/acme' });
    expect(accounts.accounts.get('acct-1')).toMatchObject({ storage_link: 'https://share.example/1', storage_path: '/Clients/acme' });
  });
});

describe('the e-mail step', () => {
  it('sends welcome and team notice once, and the storage-ready e-mail once the link exists', async () => {
    const mailer = fakeMailer();
    const deps = { mailer, ledger, accounts: accounts.store, portalUrl: 'https://portal.example', teamAddress: 'team@agency.example', invitations: fakeInvitations() };
    const early = await sendOnboardingEmails(deps, input);
    expect(early.details).toEqual({ sent: ['welcome', 'team-new-client'], pending: ['storage-ready'] });
    await accounts.store.saveAccountDetails('acct-1', { storage_link: 'https://share.example/1', storage_path: '/Clients/acme' });
    const late = await sendOnboardingEmails(deps, input);
    expect(late.details).toEqual({ sent: ['welcome', 'team-new-client', 'storage-ready'], pending: [] });
    expect(mailer.sent.map((e) => e.kind)).toEqual(['welcome', 'team-new-client', 'storage-ready']);
    const welcome = mailer.sent[0]!;
    expect(welcome.text).toContain('https://portal.example/acme');
    expect(welcome.html).toContain('https://portal.example/acme');
    expect(mailer.sent[2]!.text).toContain('https://share.example/1');
  });

  it("sends the owner's invitation the onboarding endpoint left for the run, once, and fails the step when it cannot", async () => {
    const invitations = fakeInvitations();
    const due: Invitation = {
      id: 'inv-1',
      account_id: 'acct-1',
      email: 'ann@acme.example',
      role: 'owner',
      status: 'pending',
      invited_by: { kind: 'service' },
      created_at: new Date().toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 3600,
      mail: 'due',
    };
    expect(await invitations.open(due)).toBe('opened');
    const mailer = fakeMailer();
    const deps = { mailer, ledger, accounts: accounts.store, portalUrl: 'https://portal.example', invitations };
    const send = mailer.send.bind(mailer);
    mailer.send = async (email) => {
      if (email.kind === 'invitation') throw new Error('resend: 500');
      return send(email);
    };
    await expect(sendOnboardingEmails(deps, input)).rejects.toThrow('resend: 500');
    mailer.send = send;
    // The part after the storage tree leaves it to the integration's own call.
    expect((await sendOnboardingEmails(deps, { ...input, part: 'after-storage' })).details).toEqual({ sent: ['welcome'], pending: ['storage-ready'] });
    expect((await sendOnboardingEmails(deps, input)).details).toEqual({ sent: ['welcome', 'invitation'], pending: ['storage-ready'] });
    expect((await sendOnboardingEmails(deps, input)).details).toEqual({ sent: ['welcome'], pending: ['storage-ready'] });
    const invited = mailer.sent.filter((e) => e.kind === 'invitation');
    expect(invited).toEqual([expect.objectContaining({ to: 'ann@acme.example', subject: 'Join Acme', idempotencyKey: 'invitation/inv-1' })]);
    expect(invited[0]!.text).toContain('https://portal.example/invitations/inv-1');
    expect(await invitations.get('inv-1')).toMatchObject({ mail: 'sent' });
  });

  it('escapes what users typed into the HTML part', async () => {
    await accounts.store.saveAccountDetails('acct-1', { company_name: '<script>alert(1)</script>' });
    const mailer = fakeMailer();
    await sendOnboardingEmails({ mailer, ledger, accounts: accounts.store, portalUrl: 'https://p', invitations: fakeInvitations() }, input);
    expect(mailer.sent[0]!.html).not.toContain('<script>');
  });
});

describe('the chat step', () => {
  it('posts the new-client notice once, and says so when it was posted already', async () => {
    const chat = fakeChat();
    const deps = { chat, ledger, accounts: accounts.store, runs: fakeRuns(), portalUrl: 'https://portal.example' };
    expect((await postChatNotices(deps, input)).details).toEqual({ posted: ['new-client'] });
    expect((await postChatNotices(deps, { ...input, runId: 'run-2' })).details).toEqual({ posted: [], alreadyPosted: ['new-client'] });
    expect(chat.posted).toHaveLength(1);
    expect(chat.posted[0]!.text).toContain('New client onboarded: Acme');
  });

  describe('in an enhanced onboarding', () => {
    const enhanced = { ...input, runId: 'enhanced-run-1' };
    let runs: ReturnType<typeof fakeRuns>;
    beforeEach(async () => {
      runs = fakeRuns();
      await runs.begin('enhanced-run-1', 'acct-1', ENHANCED_WORKFLOW);
      await runs.begin('enhanced-run-2', 'acct-1', ENHANCED_WORKFLOW);
    });

    it("posts its own notice once per run, even when onboarding-v2 posted the account's already", async () => {
      const chat = fakeChat();
      const deps = { chat, ledger, accounts: accounts.store, runs, portalUrl: 'https://portal.example' };
      await postChatNotices(deps, input); // onboarding-v2's notice
      expect((await postChatNotices(deps, enhanced)).details).toEqual({ posted: ['enhanced-onboarding'] });
      // A redrive of the same run posts nothing again; a new enhanced run posts its own.
      expect((await postChatNotices(deps, enhanced)).details).toEqual({ posted: [], alreadyPosted: ['enhanced-onboarding'] });
      expect((await postChatNotices(deps, { ...input, runId: 'enhanced-run-2' })).details).toEqual({ posted: ['enhanced-onboarding'] });
      expect(chat.posted).toHaveLength(3);
    });

    it("carries the run's site analysis and scrape figures", async () => {
      await runs.recordStep('enhanced-run-1', { integration: 'analysis', outcome: 'success', details: { source: 'measurement', status: 200, ttfbMs: 182, totalMs: 240, bytes: 18234, https: true }, at: 'now' });
      await runs.recordStep('enhanced-run-1', { integration: 'scrape', outcome: 'success', details: { source: 'crawler', pages: 4, words: 35, skipped: { robots: 1 } }, at: 'now' });
      await runs.recordStep('enhanced-run-1', { integration: 'upload', outcome: 'success', details: { path: '/Clients/acme/04 Website/website-content.csv', rows: 4, bytes: 1190 }, at: 'now' });
      const chat = fakeChat();
      await postChatNotices({ chat, ledger, accounts: accounts.store, runs, portalUrl: 'https://portal.example' }, enhanced);
      // Read without the breaks that keep users' text from being linked.
      const text = chat.posted[0]!.text.replaceAll('\u200b', '');
      expect(text).toContain('New client onboarded: Acme');
      expect(text).toContain('Website analysis: status 200, first byte after 182 ms, 240 ms in all, 18234 bytes');
      expect(text).toContain('Website content: 4 pages, 35 words');
      expect(text).toContain('/Clients/acme/04 Website/website-content.csv');
    });

    it('says which site work failed, with its reason', async () => {
      await runs.recordStep('enhanced-run-1', { integration: 'scrape', outcome: 'failed', details: {}, error: { message: 'no-such-host.invalid could not be resolved', context: {} }, at: 'now' });
      const chat = fakeChat();
      await postChatNotices({ chat, ledger, accounts: accounts.store, runs, portalUrl: 'https://portal.example' }, enhanced);
      expect(chat.posted[0]!.text.replaceAll('\u200b', '')).toContain('Website content: failed (no-such-host.invalid could not be resolved)');
    });
  });
});

describe('the CRM step', () => {
  const deps = () => ({ crm: fakeCrm(), ledger, accounts: accounts.store, portalUrl: 'https://p' });

  it('updates the lead found by the contact e-mail', async () => {
    const d = deps();
    const id = await d.crm.createLead({ companyName: 'Old', contact: { email: 'ann@acme.example' } });
    expect((await syncCrmLead(d, input)).details).toEqual({ leadId: id, action: 'updated' });
    expect(d.crm.leads.get(id)!.companyName).toBe('Acme');
  });

  it('falls back to the lead found by the company domain, adding the contact', async () => {
    const d = deps();
    const id = await d.crm.createLead({ companyName: 'Acme', website: 'https://acme.example', contact: { email: 'bob@acme.example' } });
    await syncCrmLead(d, input);
    expect(d.crm.leads.size).toBe(1);
    expect(d.crm.leads.get(id)!.contacts).toEqual(['bob@acme.example', 'ann@acme.example']);
  });

  it("adopts a domain's lead only for a contact whose address is at that domain", async () => {
    const d = deps();
    const theirs = await d.crm.createLead({ companyName: 'Acme', website: 'https://acme.example', contact: { email: 'bob@acme.example' } });
    // The website is the form's say-so: a contact elsewhere gets a lead of their own, and Acme's is left as it was.
    expect((await syncCrmLead(d, { ...input, email: 'someone@elsewhere.example' })).details).toMatchObject({ action: 'created' });
    expect(d.crm.leads.get(theirs)).toMatchObject({ companyName: 'Acme', contacts: ['bob@acme.example'] });
    expect(d.crm.leads.size).toBe(2);
  });

  it('counts an address at a subdomain as at the domain, and nothing that only ends like it', () => {
    expect(addressIsAtDomain('Ann@Mail.Acme.Example', 'acme.example')).toBe(true);
    expect(addressIsAtDomain('ann@acme.example', 'www.acme.example')).toBe(true);
    expect(addressIsAtDomain('ann@notacme.example', 'acme.example')).toBe(false);
    expect(addressIsAtDomain('acme.example@evil.example', 'acme.example')).toBe(false);
  });

  it('creates a lead when there is none, and never a second one', async () => {
    const d = deps();
    expect((await syncCrmLead(d, input)).details).toMatchObject({ action: 'created' });
    await syncCrmLead(d, input);
    expect(d.crm.leads.size).toBe(1);
  });
});
