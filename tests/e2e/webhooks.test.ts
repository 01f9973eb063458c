// The membership and booking webhooks over HTTP on the local stack, as the
// providers call them, after an onboarding through /api/onboarding-v2; the
// booking work is done by the booking state machine against the ClickUp and
// Slack emulators.
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { bookingJobName } from '../../lib/webhooks/booking-queue.ts';
import { membershipEventId, parseMembershipEvent } from '../../lib/webhooks/membership-events.ts';
import { api, errorCode, recorded, stack, type Reply } from '../support/http.ts';
import { memberRecord, memberRecordOf, memberRecordsOfAccount, stackDb as db, table } from '../support/stack-db.ts';
import { bearer, signedInUser } from '../support/users.ts';
import {
  BOOKING_MACHINE,
  bookingExecution,
  calendlyBody,
  chatAbout,
  copyAnswer,
  deliverWebhook as deliver,
  membershipMember as member,
  onboardedAccount,
  onboardingTasks,
  pathOf,
  stackSfn as sfn,
} from '../support/webhooks.ts';

const KEY = { 'x-api-key': 'local-internal-api-key' };
const token = () => Math.random().toString(36).slice(2, 8);
const eventually = <T>(check: () => Promise<T>, timeout = 60_000) => vi.waitFor(check, { timeout, interval: 300 });

const svixHeaders = (body: string, secret: string, id = `msg_${token()}`) => {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'svix-id': id, 'svix-timestamp': String(timestamp), 'svix-signature': `v1,${signature}` };
};

describe('the booking webhook', () => {
  it('adds one task to the onboarding list and one chat alert, once for five concurrent deliveries, and a cancel updates that task', async () => {
    const account = await onboardedAccount();
    const t = token();
    const booked = calendlyBody('invitee.created', t);

    const replies = await Promise.all(Array.from({ length: 5 }, () => deliver(account.urls.booking, booked)));
    // Every copy is the one execution named after the event, so each is answered 200 at once: queued while that
    // execution runs (Step Functions answers a same-named start as the first), a duplicate once it has finished.
    const outcomes = replies.map((r) => copyAnswer(r));
    expect(outcomes).toContain('200 queued');
    for (const o of outcomes) expect(['200 queued', '200 duplicate']).toContain(o);
    await bookingExecution(account.accountId, 'calendly', `invitee.created|https://api.calendly.com/scheduled_events/EV-${t}/invitees/INV-${t}`);
    // The provider's retry, once it has run.
    expect(copyAnswer(await deliver(account.urls.booking, booked))).toBe('200 duplicate');

    const tasks = await onboardingTasks(account);
    const mine = tasks.filter((task) => task.name.includes(`Guest ${t}`));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ name: expect.stringMatching(new RegExp(`^Call with Guest ${t}: Kick-off call \\[[0-9a-f]{6}\\]$`)), due_date: String(Date.parse('2026-04-07T08:00:00Z')) });
    expect(mine[0]!.description).toContain('- When: Tue 7 Apr 2026, 10:00–10:30 (Europe/Berlin)');
    expect(await chatAbout(`Guest ${t}`)).toEqual([
      expect.objectContaining({ text: `New booking for ${account.company}: Guest ${t} (guest-${t}@example.org) booked "Kick-off call" for Tue 7 Apr 2026, 10:00–10:30 (Europe/Berlin)` }),
    ]);
    // Only one execution ever ran for this booking.
    const { executions = [] } = await sfn().send(new ListExecutionsCommand({ stateMachineArn: BOOKING_MACHINE }));
    expect(executions.filter((e) => e.name === bookingJobName(`booking#${account.accountId}#calendly#invitee.created|https://api.calendly.com/scheduled_events/EV-${t}/invitees/INV-${t}`))).toHaveLength(1);

    const cancel = calendlyBody('invitee.canceled', t, { cancellation: { canceled_by: `Guest ${t}`, reason: 'Double booked' } });
    expect((await deliver(account.urls.booking, cancel)).body).toEqual({ received: true, outcome: 'queued' });
    await bookingExecution(account.accountId, 'calendly', `invitee.canceled|https://api.calendly.com/scheduled_events/EV-${t}/invitees/INV-${t}`);
    const after = (await onboardingTasks(account)).filter((task) => task.name.includes(`Guest ${t}`));
    expect(after).toEqual([expect.objectContaining({ id: mine[0]!.id, name: expect.stringMatching(/^Cancelled: Call with Guest/) })]);
    expect(after[0]!.description).toContain('- Reason: Double booked');
    expect((await chatAbout(`Guest ${t}`)).map((m: { text: string }) => m.text)).toContain(
      `Booking cancelled for ${account.company}: Guest ${t} (guest-${t}@example.org) cancelled "Kick-off call" for Tue 7 Apr 2026, 10:00–10:30 (Europe/Berlin). Reason: Double booked`,
    );
  });

  it('takes Cal.com bookings signed with the key the owner configured, and refuses bad or missing signatures with 400', async () => {
    const owner = await signedInUser();
    const account = await onboardedAccount(bearer(owner.accessToken), owner.email);
    const mine = await api(`/api/accounts/${account.accountId}/webhooks`, { headers: bearer(owner.accessToken) });
    expect(mine.body.urls).toEqual(account.urls);
    const set = await api(`/api/accounts/${account.accountId}/webhooks/signing-keys`, { method: 'PUT', body: { calcom: 'calcom-e2e-secret' }, headers: bearer(owner.accessToken) });
    expect(set.status).toBe(200);
    expect(set.body.signingKeys).toEqual({ membership: false, calendly: false, calcom: true });

    const t = token();
    const body = JSON.stringify({
      triggerEvent: 'BOOKING_CREATED',
      createdAt: new Date().toISOString(),
      payload: { uid: `uid-${t}`, title: `Strategy ${t}`, startTime: '2026-05-04T15:00:00Z', endTime: '2026-05-04T16:00:00Z', attendees: [{ name: `Cal ${t}`, email: `cal-${t}@example.org`, timeZone: 'UTC' }] },
    });
    const sign = (key: string) => ({ 'x-cal-signature-256': createHmac('sha256', key).update(body).digest('hex') });
    for (const headers of [{}, sign('wrong-secret'), { 'x-cal-signature-256': 'no-secret-provided' }]) {
      const refused = await deliver(account.urls.booking, body, headers);
      expect(refused.status).toBe(400);
      expect(errorCode(refused)).toBe('invalid_signature');
    }
    expect((await deliver(account.urls.booking, body, sign('calcom-e2e-secret'))).body).toEqual({ received: true, outcome: 'queued' });
    const execution = await bookingExecution(account.accountId, 'calcom', `BOOKING_CREATED|uid-${t}`);
    expect((await onboardingTasks(account)).filter((task) => task.name.includes(`Strategy ${t}`))).toHaveLength(1);
    expect(await chatAbout(`Strategy ${t}`)).toHaveLength(1);
    // Operators see booking executions with the project's command.
    const env = { ...process.env, AWS_ENDPOINT_URL_SFN: stack().urls.stepFunctions };
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/executions.ts', 'show', execution.name!, '--machine', 'booking'], { env });
    expect(stdout).toContain(`${execution.name}\n  status:   SUCCEEDED`);
  });
});

describe('the membership webhook', () => {
  it('answers 400 for a timestamp the store cannot hold, and leaves out a custom field it cannot (its number, or its key: constructor), where both answered 500', async () => {
    const account = await onboardedAccount();
    const t = token();
    const email = `big-${t}@example.org`;
    const bad = `{"event":"member.created","timestamp":1e300,"payload":${JSON.stringify(member(`mem_${t}`, email))}}`;
    const refused = await deliver(account.urls.membership, bad);
    expect(refused.status).toBe(400);
    expect(await memberRecord(account.accountId, email)).toBeUndefined();
    const fields = `{"event":"member.created","timestamp":${Date.now()},"payload":${JSON.stringify(member(`mem_${t}`, email)).replace('"customFields":{', '"customFields":{"huge":1e300,"tiny":1e-200,"constructor":"Acme","prototype":"x","seats":3,')}}`;
    expect((await deliver(account.urls.membership, fields)).body).toEqual({ received: true, outcome: 'applied' });
    expect((await memberRecord(account.accountId, email))?.membership.custom_fields).toEqual({ seats: 3, 'first-name': 'Mo', 'last-name': 'Ray' });
  });

  it('creates the record of a new member, updates it on a plan change, and a newly paying member joins the account’s onboarding run', async () => {
    const account = await onboardedAccount();
    const t = token();
    const email = `mo-${t}@example.org`;
    const created = JSON.stringify({ event: 'member.created', timestamp: Date.now() - 1000, payload: member(`mem_${t}`, email) });
    expect((await deliver(account.urls.membership, created)).body).toEqual({ received: true, outcome: 'applied' });
    expect(await memberRecord(account.accountId, email)).toMatchObject({
      account_id: account.accountId,
      role: 'member',
      status: 'active',
      name: 'Mo Ray',
      membership: { member_id: `mem_${t}`, status: 'active', paying: false, plans: {} },
    });

    const plan = JSON.stringify({
      event: 'member.plan.created',
      timestamp: Date.now(),
      payload: { id: `mem_${t}`, planConnection: { id: `con_${t}`, planId: 'pln_growth', status: 'ACTIVE', type: 'SUBSCRIPTION', active: true } },
    });
    expect((await deliver(account.urls.membership, plan)).body).toEqual({ received: true, outcome: 'applied' });
    expect((await deliver(account.urls.membership, plan)).body).toEqual({ received: true, outcome: 'duplicate' });
    expect(await memberRecord(account.accountId, email)).toMatchObject({
      membership: {
        paying: true,
        plans: { [`con_${t}`]: { plan_id: 'pln_growth', status: 'ACTIVE', type: 'SUBSCRIPTION', active: true } },
        // The account was onboarded with these very details: the member joined that run.
        onboarding_run: account.executionId,
      },
    });
  });

  it('keeps each account’s own record of a person: another account syncing the address first blocks nothing, where it once took the record', async () => {
    // The attack: an account's owner posts, to their own membership URL, a
    // member.created for somebody else's client. Records keyed by address alone
    // let the first account keep the person, and the real account's events for
    // them were ignored: no record, no invitation, no onboarding on payment.
    const [squatter, victim] = await Promise.all([onboardedAccount(), onboardedAccount()]);
    const t = token();
    const email = `client-${t}@example.org`;
    const squat = JSON.stringify({ event: 'member.created', timestamp: Date.now() - 2000, payload: member(`mem_sq_${t}`, email) });
    expect((await deliver(squatter.urls.membership, squat)).body).toEqual({ received: true, outcome: 'applied' });

    const paid = { id: `con_${t}`, planId: 'pln_growth', status: 'ACTIVE', type: 'SUBSCRIPTION', active: true };
    const real = JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: member(`mem_${t}`, email, { planConnections: [paid] }) });
    expect((await deliver(victim.urls.membership, real)).body).toEqual({ received: true, outcome: 'applied' });
    expect(await memberRecord(victim.accountId, email)).toMatchObject({
      account_id: victim.accountId,
      role: 'member',
      membership: { member_id: `mem_${t}`, paying: true, onboarding_run: victim.executionId },
    });
    const invited = await api(`/api/accounts/${victim.accountId}/invitations`, { headers: victim.auth });
    expect(invited.body.invitations.filter((i: { email: string; status: string }) => i.email === email && i.status === 'pending')).toHaveLength(1);
    // The squatter's record is its own, and unchanged by the other account's event.
    expect(await memberRecord(squatter.accountId, email)).toMatchObject({ account_id: squatter.accountId, membership: { member_id: `mem_sq_${t}`, paying: false } });
  });

  it('starts the onboarding of an account made at sign-up when its first member pays', async () => {
    const t = token();
    const owner = await signedInUser({ companyName: `Signup ${t}` });
    const accountId = (await memberRecordOf(owner.email))!.account_id as string;
    const urls = (await api(`/api/accounts/${accountId}/webhooks`, { headers: bearer(owner.accessToken) })).body.urls;
    const paying = JSON.stringify({
      event: 'member.created',
      timestamp: Date.now(),
      payload: member(`mem_${t}`, `payer-${t}@example.org`, { planConnections: [{ id: `con_${t}`, planId: 'pln_pro', status: 'ACTIVE', type: 'SUBSCRIPTION', active: true }] }),
    });
    expect((await deliver(urls.membership, paying)).body).toEqual({ received: true, outcome: 'applied' });
    const runId = (await memberRecord(accountId, `payer-${t}@example.org`))!.membership.onboarding_run as string;
    expect(runId).toMatch(new RegExp(`^${accountId}-[0-9a-f]{16}$`));
    await eventually(async () => {
      const run = await api(`/api/onboarding/runs/${runId}`, { headers: KEY });
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ success: true, accountId, integrations: { clickup: 'success', slack: 'success' } });
    });
    expect((await recorded('tasks')).filter((f: { name: string }) => f.name.startsWith(`Signup ${t} (`))).toHaveLength(1);
  });
});

describe('what the webhooks refuse', () => {
  it('answers a wrong secret of the same length, a rotated-out one and a truncated one with 404, changing nothing', async () => {
    const account = await onboardedAccount();
    const secret = pathOf(account.urls.membership).split('/').at(-1)!;
    const rotated = await api(`/api/accounts/${account.accountId}/webhooks/rotate`, { method: 'POST', headers: account.auth });
    expect(rotated.status).toBe(200);
    expect(rotated.body.urls.membership).not.toBe(account.urls.membership);

    const t = token();
    const email = `ghost-${t}@example.org`;
    const body = JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: member(`mem_${t}`, email) });
    const booking = calendlyBody('invitee.created', t);
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const path of [wrong, secret, secret.slice(0, 42)]) {
      for (const [kind, payload] of [['membership', body], ['booking', booking]] as const) {
        const reply: Reply = await api(`/webhooks/${kind}/${path}`, { method: 'POST', raw: payload, headers: { 'content-type': 'application/json' } });
        expect(reply.status, `${kind} ${path.length}`).toBe(404);
        expect(errorCode(reply)).toBe('not_found');
        expect(reply.body.error.message).toBe('There is no webhook at this address');
      }
    }
    // Nothing was written: no member, no delivery record, no booking execution.
    expect(await memberRecord(account.accountId, email)).toBeUndefined();
    expect(await memberRecordsOfAccount(account.accountId)).toHaveLength(1);
    const parsed = parseMembershipEvent(body, new Date());
    if (!parsed.handled) throw new Error('the test event must be one the webhook acts on');
    const eventKey = `membership#${account.accountId}#${membershipEventId(parsed.event, undefined)}`;
    const deliveryRow = async () => (await db().send(new GetCommand({ TableName: table('webhook_events'), Key: { event_key: eventKey } }))).Item;
    expect(await deliveryRow()).toBeUndefined();
    const bookingName = bookingJobName(`booking#${account.accountId}#calendly#invitee.created|https://api.calendly.com/scheduled_events/EV-${t}/invitees/INV-${t}`);
    const { executions = [] } = await sfn().send(new ListExecutionsCommand({ stateMachineArn: BOOKING_MACHINE }));
    expect(executions.map((e) => e.name)).not.toContain(bookingName);

    // The new URL works.
    expect((await deliver(rotated.body.urls.membership, body)).body).toEqual({ received: true, outcome: 'applied' });
    expect(await memberRecord(account.accountId, email)).toMatchObject({ account_id: account.accountId });
    expect(await deliveryRow()).toMatchObject({ value: 'applied', finished_at: expect.any(String), account_id: account.accountId });
  });

  it('answers a bad Svix signature with 400 once the membership signing key is set, and takes a good one', async () => {
    const account = await onboardedAccount();
    const key = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
    expect((await api(`/api/accounts/${account.accountId}/webhooks/signing-keys`, { method: 'PUT', body: { membership: key }, headers: account.auth })).status).toBe(200);
    const t = token();
    const email = `signed-${t}@example.org`;
    const body = JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: member(`mem_${t}`, email) });
    const other = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
    for (const headers of [{}, svixHeaders(body, other), { ...svixHeaders(body, key), 'svix-id': 'msg_tampered' }]) {
      const refused = await deliver(account.urls.membership, body, headers);
      expect(refused.status).toBe(400);
      expect(errorCode(refused)).toBe('invalid_signature');
    }
    expect(await memberRecord(account.accountId, email)).toBeUndefined();
    expect((await deliver(account.urls.membership, body, svixHeaders(body, key))).body).toEqual({ received: true, outcome: 'applied' });
    expect(await memberRecord(account.accountId, email)).toMatchObject({ account_id: account.accountId });
  });

  it('lets only the owner near the settings: not a stranger, and not the internal service key', async () => {
    const owner = await signedInUser();
    const stranger = await signedInUser();
    const account = await onboardedAccount(bearer(owner.accessToken), owner.email);
    const path = `/api/accounts/${account.accountId}/webhooks`;
    expect((await api(path)).status).toBe(401);
    expect((await api(path, { headers: bearer(stranger.accessToken) })).status).toBe(404);
    expect((await api(`${path}/rotate`, { method: 'POST', headers: bearer(stranger.accessToken) })).status).toBe(404);
    for (const headers of [KEY, { 'x-api-key': 'wrong' }]) {
      expect((await api(path, { headers })).status).toBe(403);
      expect((await api(`/api/accounts/${crypto.randomUUID()}/webhooks`, { headers })).status).toBe(403);
    }
    expect((await api(`${path}/rotate`, { method: 'POST', headers: bearer(owner.accessToken) })).status).toBe(200);
    const badKey = await api(`${path}/signing-keys`, { method: 'PUT', body: { membership: 'nope-not-svix' }, headers: bearer(owner.accessToken) });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.details).toEqual([{ path: '/body/membership', message: 'must be the Svix signing secret, whsec_ followed by base64' }]);
  });
});
