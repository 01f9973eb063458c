// A client's whole life cycle over HTTP, as its owner, the agency and the
// payment provider drive it: onboarded and paying, cancelled in the billing
// portal, offboarded once the grace period (OFFBOARDING_GRACE_SECONDS, short
// on the test stack) has passed, refused every write once closed, reopened,
// and erased. What each vendor holds is read from the emulators.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { api, errorCode, recorded, stack } from '../support/http.ts';
import { followRun, onboard, SERVICE_KEY } from '../support/onboarding.ts';
import { payOnHostedPage } from '../support/payments.ts';
import { stackDb, table } from '../support/stack-db.ts';
import { bearer, mailTo, newEmail, signedInUser } from '../support/users.ts';

const ADMIN_KEY = { 'x-admin-key': 'local-admin-api-key' };
/** Longer than the grace period and an offboarding run on a busy machine. */
const eventually = <T>(check: () => Promise<T>, timeout = 180_000) => vi.waitFor(check, { timeout, interval: 500 });

/** An owner whose account is onboarded (every integration provisioned) and pays for a plan. */
async function payingClient() {
  const company = `Leaving ${crypto.randomUUID().slice(0, 8)}`;
  const owner = await signedInUser({ companyName: company });
  const auth = bearer(owner.accessToken);
  const accountId = (await owner.client.get('/api/auth/me', auth)).body.accounts[0].accountId as string;
  const onboarded = await onboard({ accountId, email: owner.email, companyName: company }, auth);
  expect([onboarded.status, onboarded.body.success]).toEqual([200, true]);
  const start = await owner.client.get('/api/checkout?plan=pro', auth);
  expect((await payOnHostedPage(start.headers.get('location')!)).status).toBe(303);
  await eventually(async () => expect((await owner.client.get(`/api/accounts/${accountId}`, auth)).body).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' }), 30_000);
  const slug = onboarded.body.portalSlug as string;
  return { ...owner, auth, accountId, company, slug, view: () => owner.client.get(`/api/accounts/${accountId}`, auth) };
}
type Client = Awaited<ReturnType<typeof payingClient>>;

/** Cancels the account's subscription on the payment provider's portal page, as the owner would. */
async function cancelInPortal(c: Client) {
  const portal = await c.client.post(`/api/accounts/${c.accountId}/billing-portal`, undefined, c.auth);
  expect(portal.status).toBe(200);
  const page = await (await fetch(portal.body.url)).text();
  const subscription = /data-subscription="([^"]+)"/.exec(page)![1]!;
  const form = new URLSearchParams({ action: 'cancel', subscription });
  expect((await fetch(portal.body.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual' })).status).toBe(303);
  await eventually(async () => expect((await c.view()).body).toMatchObject({ subscriptionStatus: 'canceled', offboarding: { trigger: 'subscription' } }), 30_000);
}

/** What the emulators hold for the client: its ClickUp folder, its Dropbox entries, its Close lead. */
async function vendorState(c: Client) {
  const folder = (await recorded<any[]>('tasks')).find((f) => f.name.includes(`(${c.slug})`));
  const tasks = folder.lists.flatMap((l: any) => l.tasks);
  const storage = (await recorded<any[]>('storage')).filter((e) => e.path.endsWith(`/${c.slug}`));
  const lead = (await recorded<any[]>('crm')).find((l) => JSON.stringify(l.contacts).includes(c.email));
  return { tasks, storage, lead };
}

describe('a client that leaves', () => {
  it('is offboarded once the grace period after its cancellation has passed: every vendor takes back, writes are refused, members still read it', async () => {
    const c = await payingClient();
    const invitee = newEmail();
    expect((await c.client.post(`/api/accounts/${c.accountId}/invitations`, { email: invitee }, c.auth)).status).toBe(201);
    const before = await vendorState(c);
    expect(before.tasks.every((t: any) => !t.archived)).toBe(true);
    const link = before.storage[0].sharedLink as string;
    expect(link).toBeTruthy();

    await cancelInPortal(c);
    // Within the grace period nothing is taken back yet.
    const scheduled = (await c.view()).body;
    expect(scheduled).toMatchObject({ status: 'active', storageLink: link, offboarding: { reason: 'The subscription ended', closedAt: null } });
    expect(Date.parse(scheduled.offboarding.notBefore)).toBeGreaterThan(Date.now() - 5_000);

    await eventually(async () => expect((await c.view()).body.status).toBe('closed'));
    const closed = (await c.view()).body;
    const run = closed.offboarding.run;
    expect(closed).toMatchObject({ storageLink: null, offboarding: { closedAt: expect.any(String) } });
    expect(run).toMatchObject({ status: 'succeeded', integrations: { clickup: 'success', dropbox: 'success', resend: 'success', slack: 'success', close: 'success' } });
    const answer = await api(`/api/onboarding/runs/${run.runId}`, { headers: c.auth });
    expect([answer.status, answer.body.success]).toEqual([200, true]);

    // Each vendor, as the emulators show it.
    const after = await vendorState(c);
    expect(after.tasks.length).toBe(before.tasks.length);
    expect(after.tasks.every((t: any) => t.archived)).toBe(true);
    expect(after.storage.map((e: any) => e.path)).toEqual([`/Former clients/${c.slug}`]);
    expect(after.storage[0].sharedLinks.find((l: any) => l.url === link)).toMatchObject({ revoked: true });
    expect(after.lead.status_id).toBe(stack().env.CLOSE_FORMER_CLIENT_STATUS_ID);
    expect((await recorded<any[]>('chat')).some((m) => m.text.startsWith(`Client leaving: ${c.company}`))).toBe(true);
    expect((await mailTo(c.email)).some((m) => m.subject === `Your account for ${c.company} is closed`)).toBe(true);

    // Writes refused, reads kept.
    const refusals = [
      await c.client.post(`/api/accounts/${c.accountId}/invitations`, { email: newEmail() }, c.auth),
      await c.client.post(`/api/accounts/${c.accountId}/billing-portal`, undefined, c.auth),
      await api('/api/onboarding-v2', { body: { accountId: c.accountId, email: c.email, companyName: c.company }, headers: SERVICE_KEY }),
    ];
    for (const reply of refusals) expect([reply.status, errorCode(reply)]).toEqual([409, 'account_closed']);
    expect((await c.client.get(`/api/accounts/${c.accountId}/members`, c.auth)).status).toBe(200);
    const invitations = (await c.client.get(`/api/accounts/${c.accountId}/invitations`, c.auth)).body.invitations;
    expect(invitations.find((i: any) => i.email === invitee)).toMatchObject({ status: 'revoked' });
    // Its webhooks tell the providers to stop.
    const hooks = (await c.client.get(`/api/accounts/${c.accountId}/webhooks`, c.auth)).body;
    const booking = await api(new URL(hooks.urls.booking).pathname, { method: 'POST', body: {} });
    expect([booking.status, errorCode(booking)]).toEqual([410, 'account_closed']);
  });

  it('is not offboarded when it subscribes again within the grace period: the waiting run stops, having taken nothing back', async () => {
    const c = await payingClient();
    await cancelInPortal(c);
    const runId = (await c.view()).body.offboarding.run.runId as string;
    const start = await c.client.get('/api/checkout?plan=starter', c.auth);
    expect((await payOnHostedPage(start.headers.get('location')!)).status).toBe(303);
    await eventually(async () => expect((await c.view()).body).toMatchObject({ subscriptionStatus: 'active', offboarding: null }), 30_000);

    const stopped = await eventually(async () => {
      const reply = await api(`/api/onboarding/runs/${runId}`, { headers: c.auth });
      expect(reply.status).toBe(200);
      return reply.body;
    });
    expect(stopped).toMatchObject({ success: true, integrations: {}, stopped: expect.stringContaining('nothing was taken back') });
    expect((await c.view()).body).toMatchObject({ status: 'active', storageLink: expect.any(String) });
    expect((await vendorState(c)).tasks.some((t: any) => t.archived)).toBe(false);
  });

  it('is closed at once when its owner asks (a second ask answers the same run), and reopened restores what was archived', async () => {
    const c = await payingClient();
    const asked = await c.client.post(`/api/accounts/${c.accountId}/offboard`, { reason: 'Moving in-house' }, c.auth);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ accountId: c.accountId, status: 'scheduled', executionId: expect.any(String) });
    const again = await c.client.post(`/api/accounts/${c.accountId}/offboard`, { reason: 'Changed my mind twice' }, c.auth);
    expect(again.body.executionId).toBe(asked.body.executionId);
    const done = await followRun(asked);
    expect([done.status, done.body.success]).toEqual([200, true]);
    await eventually(async () => expect((await c.view()).body).toMatchObject({ status: 'closed', offboarding: { reason: 'Moving in-house', trigger: 'request' } }), 30_000);
    const closedAgain = await c.client.post(`/api/accounts/${c.accountId}/offboard`, { reason: 'Again' }, c.auth);
    expect([closedAgain.status, closedAgain.body.executionId]).toEqual([200, asked.body.executionId]);
    const oldLink = (await vendorState(c)).storage[0].sharedLinks[0].url as string;

    // Reopened by the agency: onboarded again, with what was archived restored rather than made anew.
    const reopened = await api(`/api/accounts/${c.accountId}/reopen`, { method: 'POST', headers: ADMIN_KEY });
    expect(reopened.status).toBe(202);
    const onboarded = await followRun(reopened);
    expect([onboarded.status, onboarded.body.success]).toEqual([200, true]);
    expect(onboarded.body.details.clickup).toMatchObject({ restoredTasks: expect.any(Number) });
    const view = (await c.view()).body;
    expect(view).toMatchObject({ status: 'active', offboarding: null });
    expect(view.storageLink).toMatch(/^https:/);
    expect(view.storageLink).not.toBe(oldLink);
    const restored = await vendorState(c);
    expect(restored.tasks.every((t: any) => !t.archived)).toBe(true);
    expect(restored.tasks.length).toBe(11);
    expect(restored.storage.map((e: any) => e.path)).toEqual([`/Clients/${c.slug}`]);
    expect((await c.client.post(`/api/accounts/${c.accountId}/invitations`, { email: newEmail() }, c.auth)).status).toBe(201);
  });

  it('lets only its owner or the agency close it, and reopens only a closed account', async () => {
    const c = await payingClient();
    const stranger = await signedInUser();
    const refused = await stranger.client.post(`/api/accounts/${c.accountId}/offboard`, { reason: 'x' }, bearer(stranger.accessToken));
    expect(refused.status).toBe(404);
    const byService = await api(`/api/accounts/${c.accountId}/offboard`, { body: { reason: 'x' }, headers: SERVICE_KEY });
    expect(byService.status).toBe(403);
    const notClosed = await c.client.post(`/api/accounts/${c.accountId}/reopen`, undefined, c.auth);
    expect([notClosed.status, errorCode(notClosed)]).toEqual([409, 'account_not_closed']);
    const noReason = await c.client.post(`/api/accounts/${c.accountId}/offboard`, {}, c.auth);
    expect([noReason.status, errorCode(noReason)]).toEqual([400, 'invalid_request']);
  });
});

describe('erasing a closed account', () => {
  /** Every item of every table of the stack, as text, that mentions any of `needles` (case-insensitive). */
  async function itemsMentioning(needles: string[]): Promise<string[]> {
    const db = stackDb();
    const found: string[] = [];
    const names = (await db.send(new (await import('@aws-sdk/client-dynamodb')).ListTablesCommand({}))).TableNames ?? [];
    for (const name of names.filter((n) => n.startsWith(table('')))) {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db.send(new ScanCommand({ TableName: name, ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) {
          const text = JSON.stringify(item).toLowerCase();
          if (needles.some((n) => text.includes(n.toLowerCase()))) found.push(`${name}: ${JSON.stringify(item).slice(0, 300)}`);
        }
        start = page.LastEvaluatedKey;
      } while (start);
    }
    return found;
  }

  it("leaves no table holding its people's addresses or its name, no CRM contact for them, and an audit record of what was erased where", async () => {
    const c = await payingClient();
    const invitee = newEmail();
    expect((await c.client.post(`/api/accounts/${c.accountId}/invitations`, { email: invitee }, c.auth)).status).toBe(201);
    const early = await api(`/api/accounts/${c.accountId}/erase`, { method: 'POST', body: {}, headers: ADMIN_KEY });
    expect([early.status, errorCode(early)]).toEqual([409, 'account_not_closed']);
    expect((await itemsMentioning([c.email])).length).toBeGreaterThan(0);

    await followRun(await c.client.post(`/api/accounts/${c.accountId}/offboard`, { reason: 'Erase me' }, c.auth));
    await eventually(async () => expect((await c.view()).body.status).toBe('closed'), 30_000);
    const byOwner = await c.client.post(`/api/accounts/${c.accountId}/erase`, {}, c.auth);
    expect(byOwner.status).toBe(403);

    const erased = await api(`/api/accounts/${c.accountId}/erase`, { method: 'POST', body: { storage: true }, headers: ADMIN_KEY });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({
      accountId: c.accountId,
      status: 'erased',
      places: {
        close: { outcome: 'erased' },
        dropbox: { outcome: 'erased' },
        resend: { outcome: 'kept' },
        supabase: { outcome: 'erased', detail: expect.stringContaining('1 sign-in users deleted') },
        'table:account_members': { outcome: 'erased' },
        'table:memberships': { outcome: 'erased' },
        'table:invitations': { outcome: 'erased' },
      },
    });

    expect(await itemsMentioning([c.email, invitee, c.company])).toEqual([]);
    const lead = (await recorded<any[]>('crm')).find((l) => l.name === c.company);
    expect(lead.contacts).toEqual([]);
    expect((await recorded<any[]>('storage')).filter((e) => e.path.includes(c.slug))).toEqual([]);
    // The audit record: the account row, with what was erased where and nothing that names anyone.
    const audit = (await stackDb().send(new ScanCommand({ TableName: table('accounts'), FilterExpression: 'id = :id', ExpressionAttributeValues: { ':id': c.accountId } }))).Items![0]!;
    expect(audit).toMatchObject({ status: 'erased', erasure: { erased_at: expect.any(String), requested_by: 'admin-key', places: erased.body.places } });
    // Its owner can no longer sign in; erasing again answers the same record.
    expect((await c.client.post('/api/auth/login', { email: c.email, password: 'Secret123' })).status).toBe(401);
    const again = await api(`/api/accounts/${c.accountId}/erase`, { method: 'POST', body: {}, headers: ADMIN_KEY });
    expect([again.status, again.body.places]).toEqual([200, erased.body.places]);
  });
});
