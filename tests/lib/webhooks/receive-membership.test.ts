// The membership webhook's use case against in-memory ports.
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { DeliveryInProgress } from '../../../lib/deliveries/deliveries.ts';
import { normaliseIntake } from '../../../lib/onboarding/intake.ts';
import { runIdFor } from '../../../lib/onboarding/run-id.ts';
import { rawBodyReader } from '../../../lib/http/endpoint.ts';
import { beginOnboarding } from '../../../lib/onboarding/start-onboarding.ts';
import { receiveMembershipDelivery, type MembershipDeps } from '../../../lib/webhooks/receive-membership.ts';
import { webhookRoutes } from '../../../lib/webhooks/routes.ts';
import { fakeInvitations, fakeMemberships } from '../../support/account-fakes.ts';
import { fakeAccounts, fakeDeliveries, fakeIntegrations, fakeLedger, fakeMailer, fakeRuns, fakeWorkflow, recordingLogger } from '../../support/fakes.ts';
import { fakeMembershipMembers, fakeWebhookIntegrations } from './fakes.ts';

/** The route's own reader: the body checked against its schema (lib/webhooks/webhook-bodies.ts), as the endpoint does. */
const readBody = rawBodyReader(webhookRoutes.membershipWebhook)!;
const NOW = new Date('2026-03-01T12:00:00Z');
const SVIX_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const FORM = { email: 'owner@acme.example', companyName: 'Acme', website: 'acme.example', phone: '+1 555 0100', timezone: 'Europe/Berlin' };

let accounts: ReturnType<typeof fakeAccounts>;
let deliveries: ReturnType<typeof fakeDeliveries>;
let integrations: ReturnType<typeof fakeWebhookIntegrations>;
let workflow: ReturnType<typeof fakeWorkflow>;
let ledger: ReturnType<typeof fakeLedger>;
let memberships: ReturnType<typeof fakeMemberships>;
let invitations: ReturnType<typeof fakeInvitations>;
let mailer: ReturnType<typeof fakeMailer>;
let deps: MembershipDeps;
let accountId: string;
let secret: string;

beforeEach(async () => {
  accounts = fakeAccounts();
  deliveries = fakeDeliveries();
  integrations = fakeWebhookIntegrations();
  workflow = fakeWorkflow();
  ledger = fakeLedger();
  memberships = fakeMemberships();
  invitations = fakeInvitations();
  mailer = fakeMailer();
  const onboarding = { accounts: accounts.store, integrations: fakeIntegrations(), runs: fakeRuns(), workflow };
  // The account as onboarding-v2 leaves it, its owner a member.
  accountId = (await beginOnboarding(onboarding, crypto.randomUUID(), normaliseIntake(FORM))).accountId;
  await memberships.join({ accountId, userId: 'owner-user', email: 'owner@acme.example', role: 'owner', via: 'created' });
  workflow.started.clear();
  secret = (await integrations.ensure(accountId)).secret;
  deps = {
    integrations,
    deliveries,
    members: fakeMembershipMembers(accounts.members),
    accounts: accounts.store,
    memberships,
    team: { accounts: accounts.store, memberships, invitations, mailer, portalUrl: 'https://portal.test', now: () => NOW },
    ledger,
    onboarding,
    log: recordingLogger(),
    now: () => NOW,
  };
});

const body = (event: string, payload: Record<string, unknown>, timestamp = NOW.getTime()) => JSON.stringify({ event, timestamp, payload });
const created = (email: string, extra: Record<string, unknown> = {}, timestamp?: number) =>
  body('member.created', { id: `mem_${email}`, auth: { email }, customFields: { 'first-name': 'Bo', 'last-name': 'Ek' }, ...extra }, timestamp);
const planEvent = (event: string, email: string, planConnection: Record<string, unknown>, timestamp?: number) =>
  body(event, { id: `mem_${email}`, planConnection }, timestamp);
const deliver = (rawBody: string, headers: Record<string, string> = {}, path = secret) =>
  receiveMembershipDelivery(deps, { secret: path, headers, rawBody, readBody: () => readBody(rawBody) });
const paid = { id: 'con_1', planId: 'pln_pro', status: 'ACTIVE', type: 'SUBSCRIPTION', active: true };

function svix(rawBody: string, id = `msg_${crypto.randomUUID()}`, timestamp = Math.floor(NOW.getTime() / 1000), key = SVIX_SECRET) {
  const signature = createHmac('sha256', Buffer.from(key.slice(6), 'base64')).update(`${id}.${timestamp}.${rawBody}`).digest('base64');
  return { 'svix-id': id, 'svix-timestamp': String(timestamp), 'svix-signature': `v1,${signature}` };
}

describe('a membership delivery', () => {
  it('creates the record of a new member in the secret’s account, once', async () => {
    const delivery = created('bo@acme.example');
    expect(await deliver(delivery)).toEqual({ outcome: 'applied' });
    const member = accounts.members.of(accountId, 'bo@acme.example') as unknown as Record<string, unknown>;
    expect(member).toMatchObject({
      account_id: accountId,
      role: 'member',
      status: 'active',
      name: 'Bo Ek',
      membership: { provider: 'memberstack', member_id: 'mem_bo@acme.example', status: 'active', paying: false },
      membership_version: 1,
    });
    expect(await deliver(delivery)).toEqual({ outcome: 'duplicate' });
    expect(accounts.members.of(accountId, 'bo@acme.example')).toMatchObject({ membership_version: 1 });
    expect([...deliveries.rows.values()]).toEqual([expect.objectContaining({ value: 'applied', finishedAt: expect.any(String) })]);
  });

  it('invites a synced person who has not joined, once, and never makes them a member', async () => {
    await deliver(created('bo@acme.example'));
    await deliver(body('member.updated', { id: 'mem_bo@acme.example', auth: { email: 'bo@acme.example' }, customFields: {} }, NOW.getTime() + 1));
    expect([...invitations.rows.values()]).toEqual([
      expect.objectContaining({
        account_id: accountId,
        email: 'bo@acme.example',
        role: 'member',
        status: 'pending',
        invited_by: { kind: 'membership-sync', provider: 'memberstack', memberId: 'mem_bo@acme.example' },
      }),
    ]);
    expect(mailer.sent.filter((m) => m.kind === 'invitation').map((m) => m.to)).toEqual(['bo@acme.example']);
    expect(await memberships.ofEmail('bo@acme.example')).toEqual([]);
  });

  it('invites nobody who has already joined the account, and revokes the open invitation of a deleted member', async () => {
    await deliver(created('owner@acme.example'));
    expect(invitations.rows.size).toBe(0);
    await deliver(created('bo@acme.example', {}, NOW.getTime() - 1000));
    await deliver(body('member.deleted', { id: 'mem_bo@acme.example' }));
    expect([...invitations.rows.values()]).toEqual([expect.objectContaining({ email: 'bo@acme.example', status: 'revoked' })]);
  });

  it('does not undo the account’s decisions: a removed member, or one whose invitation was revoked, is not invited again by a later event', async () => {
    // Bo joined through the sync's invitation, and the owner removed him; his next profile edit at Memberstack must not bring him back.
    await deliver(created('bo@acme.example'));
    const [invited] = await invitations.toEmail('bo@acme.example');
    await invitations.accept(invited!.id, 'bo-user', NOW);
    await memberships.join({ accountId, userId: 'bo-user', email: 'bo@acme.example', role: 'member', via: 'invitation', invitationId: invited!.id });
    await memberships.remove(accountId, 'bo-user', 'member');
    const edited = (email: string, at: number) => body('member.updated', { id: `mem_${email}`, auth: { email }, customFields: { 'first-name': 'Edited' } }, at);
    expect(await deliver(edited('bo@acme.example', NOW.getTime() + 1))).toEqual({ outcome: 'applied' });
    // The owner revoked Al's invitation: his next edit must not send another.
    await deliver(created('al@acme.example'));
    const [al] = (await invitations.toEmail('al@acme.example')).filter((i) => i.status === 'pending');
    await invitations.revoke(al!.id, 'owner-user', NOW);
    expect(await deliver(edited('al@acme.example', NOW.getTime() + 1))).toEqual({ outcome: 'applied' });
    expect([...invitations.rows.values()].filter((i) => i.status === 'pending')).toEqual([]);
    expect(mailer.sent.filter((m) => m.kind === 'invitation').map((m) => m.to)).toEqual(['bo@acme.example', 'al@acme.example']);
    // Only the sync's own revocation (the member deleted at Memberstack) leaves a new sign-up there free to be invited.
    await deliver(created('cy@acme.example'));
    await deliver(body('member.deleted', { id: 'mem_cy@acme.example' }, NOW.getTime() + 1));
    await deliver(created('cy@acme.example', {}, NOW.getTime() + 2));
    expect((await invitations.toEmail('cy@acme.example')).map((i) => i.status).sort()).toEqual(['pending', 'revoked']);
  });

  it('answers a person who joined another account as anyone else: the sender cannot tell (this account’s own record and invitation; the other account untouched)', async () => {
    // The attack: an owner posting member.created for an address to their own
    // webhook URL learned from the answer ('ignored' against 'applied'), and from
    // their invitations list, whether the address belonged to another client.
    await memberships.join({ accountId: 'bigcorp', userId: 'ceo', email: 'ceo@bigcorp.example', role: 'owner', via: 'created' });
    expect(await deliver(created('ceo@bigcorp.example'))).toEqual(await deliver(created('nobody-yet@acme.example')));
    expect(accounts.members.of(accountId, 'ceo@bigcorp.example')).toMatchObject({ account_id: accountId, role: 'member' });
    expect((await invitations.toEmail('ceo@bigcorp.example')).map((i) => [i.account_id, i.status])).toEqual([[accountId, 'pending']]);
    expect(await memberships.ofEmail('ceo@bigcorp.example')).toEqual([expect.objectContaining({ account_id: 'bigcorp', status: 'active' })]);
  });

  it('updates the member on a plan change, finding it by member id, and starts the onboarding of a newly paying member with the account’s details', async () => {
    await deliver(created('bo@acme.example', {}, NOW.getTime() - 1000));
    expect(await deliver(planEvent('member.plan.created', 'bo@acme.example', paid))).toMatchObject({ outcome: 'applied' });
    const member = accounts.members.of(accountId, 'bo@acme.example') as unknown as { membership: Record<string, unknown> };
    // The run onboarding-v2 would give these very details: joining it, not a second onboarding.
    const runId = runIdFor(accountId, normaliseIntake(FORM));
    expect(member.membership).toMatchObject({ paying: true, plans: { con_1: { plan_id: 'pln_pro', status: 'ACTIVE', active: true } }, onboarding_run: runId });
    expect([...workflow.started.keys()]).toEqual([runId]);
    expect(workflow.started.get(runId)).toEqual({ accountId, email: 'owner@acme.example', runId });
    expect(accounts.accounts.get(accountId)).toMatchObject({ company_name: 'Acme', contact_email: 'owner@acme.example', phone: '+1 555 0100' });

    await deliver(planEvent('member.plan.canceled', 'bo@acme.example', { ...paid, status: 'CANCELED', active: false }, NOW.getTime() + 1000));
    expect((accounts.members.of(accountId, 'bo@acme.example') as unknown as { membership: Record<string, unknown> }).membership).toMatchObject({
      paying: false,
      plans: { con_1: { status: 'CANCELED', active: false } },
      onboarding_run: runId,
    });
    // Paying again later does not start another run.
    await deliver(planEvent('member.plan.updated', 'bo@acme.example', paid, NOW.getTime() + 2000));
    expect(workflow.started.size).toBe(1);
  });

  it('gives a failed onboarding start back to the provider, whose retry starts it', async () => {
    await deliver(created('bo@acme.example', {}, NOW.getTime() - 1000));
    workflow.failNext();
    const delivery = planEvent('member.plan.created', 'bo@acme.example', paid);
    await expect(deliver(delivery)).rejects.toThrow('StartExecution throttled');
    expect(workflow.started.size).toBe(0);
    expect(await deliver(delivery)).toMatchObject({ outcome: 'applied' });
    expect(workflow.started.size).toBe(1);
  });

  it('keeps its own record of a person another account has a record of, leaving that one as it was', async () => {
    const elsewhere = { email: 'eve@else.example', account_id: 'other-account', role: 'owner' as const, status: 'active' as const, created_at: 'x', updated_at: 'x' };
    accounts.members.put(elsewhere);
    expect(await deliver(created('eve@else.example', { planConnections: [paid] }))).toEqual({ outcome: 'applied', detail: `onboarding ${runIdFor(accountId, normaliseIntake(FORM))}` });
    expect(accounts.members.of(accountId, 'eve@else.example')).toMatchObject({ account_id: accountId, role: 'member', membership: { paying: true } });
    expect(accounts.members.of('other-account', 'eve@else.example')).toEqual(elsewhere);
    expect(workflow.started.size).toBe(1);
    expect((await invitations.toEmail('eve@else.example')).map((i) => i.account_id)).toEqual([accountId]);
  });

  it('asks for a retry (409) when a plan event overtakes its member, and takes it once the member is known', async () => {
    const early = planEvent('member.plan.created', 'late@acme.example', paid);
    await expect(deliver(early)).rejects.toMatchObject({ code: 'member_not_known_yet' });
    expect(deliveries.rows.size).toBe(0);
    await deliver(created('late@acme.example', {}, NOW.getTime() - 5000));
    expect(await deliver(early)).toMatchObject({ outcome: 'applied' });
    expect(accounts.members.of(accountId, 'late@acme.example')).toMatchObject({ membership: { paying: true } });
  });

  it('marks a deleted member removed', async () => {
    await deliver(created('bo@acme.example', {}, NOW.getTime() - 1000));
    expect(await deliver(body('member.deleted', { id: 'mem_bo@acme.example' }))).toEqual({ outcome: 'applied' });
    expect(accounts.members.of(accountId, 'bo@acme.example')).toMatchObject({ status: 'removed', membership: { status: 'deleted' } });
  });

  it('ignores event types it does not act on, recording nothing', async () => {
    expect(await deliver(body('team.member.added', {}))).toMatchObject({ outcome: 'ignored' });
    expect(deliveries.rows.size).toBe(0);
  });

  it('takes five identical deliveries arriving together once; the copies are told at once to retry, and a retry is a duplicate', async () => {
    const delivery = created('five@acme.example', { planConnections: [paid] });
    const headers = { 'svix-id': 'msg_five' };
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => deliver(delivery, headers)));
    expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value.outcome)).toEqual(['applied']);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) expect(o.reason).toBeInstanceOf(DeliveryInProgress);
    expect(accounts.members.of(accountId, 'five@acme.example')).toMatchObject({ membership_version: 2 });
    expect(workflow.started.size).toBe(1);
    expect(await deliver(delivery, headers)).toEqual({ outcome: 'duplicate' });
  });
});

describe('while an upgraded stage copies its member records', () => {
  it('holds every delivery with a retryable 503, writing nothing, and takes it once the copy is done', async () => {
    deps.copyingMemberRecords = true;
    const delivery = created('held@acme.example', { planConnections: [paid] });
    await expect(deliver(delivery)).rejects.toMatchObject({ code: 'member_records_copying', retryAfterSeconds: 300 });
    // A wrong secret is still a plain 404.
    await expect(deliver(delivery, {}, 'x'.repeat(43))).rejects.toMatchObject({ code: 'not_found' });
    expect(accounts.members.of(accountId, 'held@acme.example')).toBeUndefined();
    expect(deliveries.rows.size).toBe(0);
    expect(invitations.rows.size).toBe(0);
    deps.copyingMemberRecords = false;
    expect(await deliver(delivery)).toMatchObject({ outcome: 'applied' });
  });
});

describe('what a membership delivery must carry', () => {
  it('answers 404 to an unknown, rotated-out, truncated or wrong secret of the same length, writing nothing', async () => {
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const rotatedOut = secret;
    await integrations.rotate(accountId);
    for (const path of [wrong, rotatedOut, secret.slice(0, 20), 'x'.repeat(43), '']) {
      await expect(deliver(created('nobody@acme.example'), {}, path)).rejects.toMatchObject({ code: 'not_found', message: 'There is no webhook at this address' });
    }
    expect(accounts.members.of(accountId, 'nobody@acme.example')).toBeUndefined();
    expect(deliveries.rows.size).toBe(0);
  });

  it('verifies the Svix signature once the account configured its signing key: 400 for a bad or missing one', async () => {
    await integrations.setSigningKeys(accountId, { membership: SVIX_SECRET });
    const delivery = created('signed@acme.example');
    for (const headers of [{}, svix(delivery, 'msg_1', undefined, 'whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA=='), svix(`${delivery} `), svix(delivery, 'msg_2', 1_000)]) {
      await expect(deliver(delivery, headers)).rejects.toMatchObject({ code: 'invalid_signature' });
    }
    expect(accounts.members.of(accountId, 'signed@acme.example')).toBeUndefined();
    expect(deliveries.rows.size).toBe(0);
    expect(await deliver(delivery, svix(delivery, 'msg_ok'))).toEqual({ outcome: 'applied' });
    expect(deliveries.rows.has(`membership#${accountId}#svix:msg_ok`)).toBe(true);
  });

  it('refuses an unreadable body with 400', async () => {
    await expect(deliver('{"event":')).rejects.toMatchObject({ code: 'malformed_json' });
    await expect(deliver(body('member.created', { id: 'mem_1' }))).rejects.toMatchObject({ code: 'invalid_payload' });
    expect(deliveries.rows.size).toBe(0);
  });

  it('refuses a signed body of the wrong shape with 400 invalid_payload, saying where', async () => {
    await integrations.setSigningKeys(accountId, { membership: SVIX_SECRET });
    const cases: [string, { path: string; message: string }][] = [
      [body('member.created', { id: 'mem_1', auth: {} }), { path: '/payload/auth/email', message: 'is required' }],
      [body('member.plan.updated', { id: 'mem_1' }), { path: '/payload/planConnection', message: 'is required' }],
      [JSON.stringify({ event: 'member.deleted', timestamp: 'yesterday', payload: { id: 'mem_1' } }), { path: '/timestamp', message: 'must be number' }],
      [JSON.stringify({ event: 'member.created' }), { path: '/payload', message: 'is required' }],
      [JSON.stringify({ payload: {} }), { path: '/event', message: 'is required' }],
    ];
    for (const [delivery, detail] of cases) {
      await expect(deliver(delivery, svix(delivery))).rejects.toMatchObject({ code: 'invalid_payload', details: expect.arrayContaining([detail]) });
    }
    expect(deliveries.rows.size).toBe(0);
  });

  it('checks the signature before the body: an unsigned or wrongly signed body learns nothing of the schema', async () => {
    await integrations.setSigningKeys(accountId, { membership: SVIX_SECRET });
    for (const delivery of ['{"event":', JSON.stringify({ payload: {} }), body('member.created', { id: 'mem_1' })]) {
      await expect(deliver(delivery)).rejects.toMatchObject({ code: 'invalid_signature' });
      await expect(deliver(delivery, svix(delivery, 'msg_x', undefined, 'whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA=='))).rejects.toMatchObject({ code: 'invalid_signature' });
      // And a wrong path secret is the same 404 whatever the body.
      await expect(deliver(delivery, svix(delivery), 'x'.repeat(43))).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  it('accepts the fields Memberstack adds, and the payload under `data`', async () => {
    const delivery = JSON.stringify({
      event: 'member.created',
      timestamp: NOW.getTime(),
      webhookVersion: 2,
      data: { id: 'mem_data', auth: { email: 'data@acme.example', hasPassword: true }, customFields: {}, stripeCustomerId: 'cus_1', verified: false },
    });
    expect(await deliver(delivery)).toEqual({ outcome: 'applied' });
    expect(accounts.members.of(accountId, 'data@acme.example')).toBeDefined();
    // An event type it does not act on is acknowledged whatever it carries.
    expect(await deliver(JSON.stringify({ event: 'team.member.added', payload: 'anything' }))).toMatchObject({ outcome: 'ignored' });
  });
});
