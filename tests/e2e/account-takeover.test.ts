// Attacks on who holds an account, over HTTP, as they were tried. Mallory makes
// her membership sync name a stranger's address, and waits for the stranger
// to sign up, pay and onboard: nothing of that may land in Mallory's account,
// and nothing of Mallory's may reach the stranger. Mallory signs up first with
// a stranger's address: the address goes to whoever reads its mailbox. The
// others were found by an attack helper: opening an account rewrote one the
// caller did not own, opening account after account escaped the invitation
// limit, and invitations outlived their inviter's say.
import { describe, expect, it, vi } from 'vitest';
import { errorCode, recorded, stack } from '../support/http.ts';
import { followRun, SERVICE_KEY, uniqueToken } from '../support/onboarding.ts';
import { accountRow, payOnHostedPage } from '../support/payments.ts';
import { bearer, client, followResetLink, logIn, mailTo, newEmail, PASSWORD, signedInUser, verificationToken, verifiedUser } from '../support/users.ts';
import { join, owner, person, userIdOf } from '../support/team.ts';
import { deliverWebhook, membershipMember } from '../support/webhooks.ts';

const sessionOf = async (hostedPage: string) => (await recorded<{ id: string; url: string; client_reference_id?: string; customer?: string }[]>('payments')).find((s) => s.url === hostedPage)!;

describe('a membership sync that names a stranger', () => {
  it('leaves the stranger in an account of their own: redirect, checkout, payment and onboarding never touch the account that named them', async () => {
    const t = uniqueToken();
    const malloryCompany = `Mallory Ltd ${t}`;
    const mallory = await signedInUser({ companyName: malloryCompany });
    const onboarded = await followRun(
      await mallory.client.post('/api/onboarding-v2', { email: mallory.email, companyName: malloryCompany }, bearer(mallory.accessToken)),
    );
    expect(onboarded.status).toBe(200);
    const malloryAccount = onboarded.body.accountId as string;
    const mallorySlug = onboarded.body.portalSlug as string;
    const settings = await mallory.client.get(`/api/accounts/${malloryAccount}/webhooks`, bearer(mallory.accessToken));
    expect(settings.status).toBe(200);

    const ceo = `ceo-${t}@bigcorp.example`;
    const sync = await deliverWebhook(
      settings.body.urls.membership,
      JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: membershipMember(`mem_${t}`, ceo) }),
    );
    expect(sync.status).toBe(200);

    // The stranger signs up and verifies: sent to their own company's portal, not Mallory's.
    const stranger = client();
    const { verified } = await verifiedUser(stranger, `BigCorp ${t}`, ceo);
    expect(verified.redirectTo).not.toContain(`/${mallorySlug}`);
    const token = (await logIn(stranger, ceo)).body.session.access_token as string;

    // Their checkout is for an account that is not Mallory's, and paying leaves Mallory's alone.
    const start = await stranger.get('/api/checkout?plan=pro', bearer(token));
    expect(start.status).toBe(303);
    const page = start.headers.get('location')!;
    const session = await sessionOf(page);
    expect(session.client_reference_id).not.toBe(malloryAccount);
    expect((await payOnHostedPage(page)).status).toBe(303);
    const strangerAccount = session.client_reference_id!;
    await vi.waitFor(async () => expect((await accountRow(strangerAccount)).subscription_status).toBe('active'), { timeout: 20_000 });
    const strangerCustomer = (await accountRow(strangerAccount)).stripe_customer_id as string;
    expect(await accountRow(malloryAccount)).not.toHaveProperty('stripe_customer_id');
    expect(await accountRow(malloryAccount)).not.toHaveProperty('plan');

    // Their onboarding writes BigCorp into their own account.
    const theirs = await followRun(
      await stranger.post('/api/onboarding-v2', { email: ceo, companyName: `BigCorp ${t}`, website: 'bigcorp.example', phone: '+1 555 0199' }, bearer(token)),
    );
    expect(theirs.status).toBe(200);
    expect(theirs.body.accountId).not.toBe(malloryAccount);
    expect(await accountRow(malloryAccount)).toMatchObject({ company_name: malloryCompany });
    expect(await accountRow(malloryAccount)).not.toHaveProperty('phone');

    // Mallory's next checkout is not offered the stranger's customer (nor their saved cards).
    const again = await mallory.client.get('/api/checkout?plan=pro', bearer(mallory.accessToken));
    expect(again.status).toBe(303);
    expect((await sessionOf(again.headers.get('location')!)).customer ?? null).not.toBe(strangerCustomer);
  });
});

// Found by an attack helper: Mallory signed up with the victim's address and her own password; the
// victim's own signup was 409 and nothing more, so they followed the only confirmation link in their
// mailbox (hers), and she logged in as them and took an invitation meant for them.
describe('signup of an address somebody else registered first', () => {
  it("gives the address to whoever reads its mailbox: the victim's signup voids the first registrant's link, and the victim chooses the password", async () => {
    const victimEmail = `${crypto.randomUUID()}@victim.example`;
    const mallory = client();
    expect((await mallory.post('/api/auth/signup', { email: victimEmail, password: 'Mallory123' })).status).toBe(201);
    const mallorysLink = await verificationToken(victimEmail);
    // The e-mail her signup sent tells a reader who did not sign up not to follow it, and how to take the address back.
    const confirmation = (await mailTo(victimEmail)).find((m) => m.subject === 'Confirm your e-mail address')!;
    expect(confirmation.text).toContain('If you did not sign up, do not follow this link');
    expect(confirmation.text).toContain('sign up yourself to take the address back');

    // The victim signs up: 409, as the contract says for a taken address...
    const victim = client();
    const signup = await victim.post('/api/auth/signup', { email: victimEmail, password: PASSWORD });
    expect([signup.status, errorCode(signup)]).toEqual([409, 'email_already_registered']);
    // ...and the confirmation link Mallory's signup sent no longer works, now or later.
    const followed = await victim.post('/api/verify-email', { token: mallorysLink });
    expect([followed.status, errorCode(followed)]).toEqual([400, 'invalid_token']);
    expect((await victim.post('/api/verify-email', { token: mallorysLink })).status).toBe(400);

    // The mailbox is asked to finish the signup by choosing a password, through a recovery link.
    const finish = (await mailTo(victimEmail)).filter((m) => m.subject === 'Finish signing up');
    expect(finish).toHaveLength(1);
    expect(finish[0]!.text).toContain('Someone tried to sign up with this e-mail address');
    const link = await followResetLink(victimEmail, 'Finish signing up');
    expect(link).toMatchObject({ landing: `${stack().env.PORTAL_URL}/reset-password`, type: 'recovery' });
    expect((await victim.post('/api/auth/reset-password', { token: link.token, password: 'Victim456' })).status).toBe(200);

    // The victim's password logs in; Mallory's never does.
    const login = await logIn(victim, victimEmail, 'Victim456');
    expect(login.status).toBe(200);
    expect(login.body.user.email_confirmed).toBe(true);
    expect((await logIn(mallory, victimEmail, 'Mallory123')).status).toBe(401);
  });

  it('leaves a confirmed address alone: a repeat signup is 409, sends nothing, and changes no password', async () => {
    const owner = client();
    const { email } = await verifiedUser(owner);
    const mailsBefore = (await mailTo(email)).length;
    const mallory = client();
    const again = await mallory.post('/api/auth/signup', { email, password: 'Mallory123' });
    expect([again.status, errorCode(again)]).toEqual([409, 'email_already_registered']);
    expect(await mailTo(email)).toHaveLength(mailsBefore);
    expect((await logIn(owner, email)).status).toBe(200);
    expect((await logIn(mallory, email, 'Mallory123')).status).toBe(401);
  });

  it('takes a double-submitted form for what it is: the repeat, with the same password, sends the confirmation again and contests nothing', async () => {
    // The attack on oneself: the form sent twice before verifying replaced the person's own password and sent
    // them "Finish signing up"; their confirmation link no longer worked and their password never logged in.
    const email = newEmail();
    const c = client();
    const [first, second] = await Promise.all([
      c.post('/api/auth/signup', { email, password: PASSWORD }),
      new Promise((r) => setTimeout(r, 150)).then(() => c.post('/api/auth/signup', { email, password: PASSWORD })),
    ]);
    expect([first.status, second.status, errorCode(second)]).toEqual([201, 409, 'email_already_registered']);
    const sent = (await mailTo(email)).map((m) => m.subject);
    expect(sent).not.toContain('Finish signing up');
    expect(sent.filter((s) => s === 'Confirm your e-mail address')).toHaveLength(2);
    expect((await c.post('/api/verify-email', { token: await verificationToken(email) })).status).toBe(200);
    const login = await logIn(c, email);
    expect(login.status).toBe(200);
    expect(login.body.user.email_confirmed).toBe(true);
  });
});

describe('POST /api/accounts by someone who is only a member of their first account', () => {
  it('opens a new account they own, and leaves the one they were demoted in as it was', async () => {
    // The attack: a creator demoted to member asked to open an account and was answered with her first
    // account, its company name, contact and creator overwritten, and her role reported as owner.
    const alice = await owner();
    const bob = await person();
    await join(alice, alice.accountId, bob, 'owner');
    const aliceId = await userIdOf(bob, alice.accountId, alice.email);
    expect((await bob.client.patch(`/api/accounts/${alice.accountId}/members/${aliceId}`, { role: 'member' }, bob.auth)).status).toBe(200);
    // As a member she may not change the account's details through onboarding.
    expect((await alice.client.post('/api/onboarding-v2', { email: alice.email, companyName: 'Hijacked Ltd', accountId: alice.accountId }, alice.auth)).status).toBe(403);
    const before = await accountRow(alice.accountId);

    const opened = await alice.client.post('/api/accounts', { companyName: 'Hijacked Ltd' }, alice.auth);
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ role: 'owner', companyName: 'Hijacked Ltd' });
    expect(opened.body.accountId).not.toBe(alice.accountId);

    const after = await accountRow(alice.accountId);
    expect({ company_name: after.company_name, contact_email: after.contact_email, created_by: after.created_by }).toEqual({
      company_name: before.company_name,
      contact_email: before.contact_email,
      created_by: before.created_by,
    });
    expect((await bob.client.get(`/api/accounts/${alice.accountId}`, bob.auth)).body.companyName).toBe(alice.companyName);
    expect((await alice.client.get(`/api/accounts/${alice.accountId}`, alice.auth)).body.role).toBe('member');
  });
});

describe('the per-account invitation limit', () => {
  it('cannot be escaped by opening account after account: one person gets at most RATE_LIMIT_INVITATIONS e-mails out per window, and opens at most RATE_LIMIT_ACCOUNTS accounts', { timeout: 240_000 }, async () => {
    // The attack: leave the first account (a co-owner stays), then every POST /api/accounts was a fresh
    // account with a fresh invitation budget; invitation #51 went out with a spam company name.
    const limit = Number((stack().env.RATE_LIMIT_INVITATIONS || '50/3600').split('/')[0]);
    const opening = Number((stack().env.RATE_LIMIT_ACCOUNTS || '10/86400').split('/')[0]);
    const spammer = await owner('Acme Prize Draw');
    await join(spammer, spammer.accountId, await person(), 'owner');
    expect((await spammer.client.post(`/api/accounts/${spammer.accountId}/leave`, undefined, spammer.auth)).status).toBe(204);

    const spam = { companyName: 'You won a prize - claim it at prize.example' };
    const a2 = await spammer.client.post('/api/accounts', spam, spammer.auth);
    const a3 = await spammer.client.post('/api/accounts', spam, spammer.auth);
    expect([a2.status, a3.status]).toEqual([201, 201]);
    expect(a3.body.accountId).not.toBe(a2.body.accountId);

    const target = (i: number) => `victim-${i}-${crypto.randomUUID().slice(0, 8)}@target.example`;
    // Her invitation of the co-owner counted: one person, one budget.
    for (let i = 1; i < limit; i++) expect((await spammer.client.post(`/api/accounts/${a2.body.accountId}/invitations`, { email: target(i) }, spammer.auth)).status, `${i}`).toBe(201);
    expect((await spammer.client.post(`/api/accounts/${a2.body.accountId}/invitations`, { email: target(limit) }, spammer.auth)).status).toBe(429);

    // The same person, in the same window, in the next account: refused, and nothing e-mailed.
    const next = target(limit + 1);
    const more = await spammer.client.post(`/api/accounts/${a3.body.accountId}/invitations`, { email: next }, spammer.auth);
    expect([more.status, errorCode(more)]).toEqual([429, 'rate_limited']);
    expect(Number(more.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await mailTo(next)).toEqual([]);
    expect((await spammer.client.get(`/api/accounts/${a3.body.accountId}/invitations`, spammer.auth)).body.invitations).toEqual([]);

    // Openings are counted per person too (the first, at verification, is not one of them).
    for (let i = 2; i < opening; i++) expect((await spammer.client.post('/api/accounts', spam, spammer.auth)).status, `${i}`).toBe(201);
    const refused = await spammer.client.post('/api/accounts', spam, spammer.auth);
    expect([refused.status, errorCode(refused)]).toEqual([429, 'rate_limited']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('an admin who is removed', () => {
  it('cannot come back through an invitation they sent before removal: it is revoked with the removal', async () => {
    const o = await owner();
    const mallory = await person();
    await join(o, o.accountId, mallory, 'admin');
    // Mallory, an admin, quietly invites a second address of hers as admin.
    const alt = await person();
    const planted = await mallory.client.post(`/api/accounts/${o.accountId}/invitations`, { email: alt.email, role: 'admin' }, mallory.auth);
    expect(planted.status).toBe(201);

    const malloryId = await userIdOf(o, o.accountId, mallory.email);
    expect((await o.client.delete(`/api/accounts/${o.accountId}/members/${malloryId}`, o.auth)).status).toBe(204);
    expect((await mallory.client.get(`/api/accounts/${o.accountId}`, mallory.auth)).status).toBe(404);
    // The owner's list says so at once.
    const listed = (await o.client.get(`/api/accounts/${o.accountId}/invitations`, o.auth)).body.invitations as { invitationId: string; status: string }[];
    expect(listed.find((i) => i.invitationId === planted.body.invitationId)?.status).toBe('revoked');

    const back = await alt.client.post(`/api/invitations/${planted.body.invitationId}/accept`, undefined, alt.auth);
    expect([back.status, errorCode(back)]).toEqual([410, 'invitation_revoked']);
    expect((await alt.client.get(`/api/accounts/${o.accountId}`, alt.auth)).status).toBe(404);
  });

  it('nor one demoted: their invitations to roles they may no longer grant are revoked, the rest stand', async () => {
    const o = await owner();
    const co = await person();
    await join(o, o.accountId, co, 'owner');
    const [asOwner, asMember] = [await person(), await person()];
    const ownerInvitation = await co.client.post(`/api/accounts/${o.accountId}/invitations`, { email: asOwner.email, role: 'owner' }, co.auth);
    const memberInvitation = await co.client.post(`/api/accounts/${o.accountId}/invitations`, { email: asMember.email, role: 'member' }, co.auth);
    expect([ownerInvitation.status, memberInvitation.status]).toEqual([201, 201]);

    // Demoted to admin: an admin may not make owners.
    const coId = await userIdOf(o, o.accountId, co.email);
    expect((await o.client.patch(`/api/accounts/${o.accountId}/members/${coId}`, { role: 'admin' }, o.auth)).status).toBe(200);
    const listed = (await o.client.get(`/api/accounts/${o.accountId}/invitations`, o.auth)).body.invitations as { invitationId: string; status: string }[];
    const statusOf = (id: string) => listed.find((i) => i.invitationId === id)?.status;
    expect([statusOf(ownerInvitation.body.invitationId), statusOf(memberInvitation.body.invitationId)]).toEqual(['revoked', 'pending']);
    const refused = await asOwner.client.post(`/api/invitations/${ownerInvitation.body.invitationId}/accept`, undefined, asOwner.auth);
    expect([refused.status, errorCode(refused)]).toEqual([410, 'invitation_revoked']);
    expect((await asMember.client.post(`/api/invitations/${memberInvitation.body.invitationId}/accept`, undefined, asMember.auth)).body).toEqual({ accountId: o.accountId, role: 'member' });
  });
});

describe('the internal service key', () => {
  it('onboards and reads runs, and nothing more: no webhook secret, no invitation (a role), no member list', async () => {
    // The attack: the portal backend's key read any account's webhook URLs (their secrets) and
    // invited anyone as an owner of any account.
    const o = await owner();
    const target = o.accountId;
    const readSecret = await client().get(`/api/accounts/${target}/webhooks`, SERVICE_KEY);
    expect([readSecret.status, errorCode(readSecret)]).toEqual([403, 'forbidden']);
    expect(JSON.stringify(readSecret.body)).not.toMatch(/webhooks\/(membership|booking)\//);
    const rotate = await client().post(`/api/accounts/${target}/webhooks/rotate`, undefined, SERVICE_KEY);
    expect([rotate.status, errorCode(rotate)]).toEqual([403, 'forbidden']);
    const mallory = newEmail();
    const crowned = await client().post(`/api/accounts/${target}/invitations`, { email: mallory, role: 'owner' }, SERVICE_KEY);
    expect([crowned.status, errorCode(crowned)]).toEqual([403, 'forbidden']);
    expect(await mailTo(mallory)).toEqual([]);
    expect((await client().get(`/api/accounts/${target}/invitations`, SERVICE_KEY)).status).toBe(403);
    // What the portal backend needs still works: onboarding, and following the run.
    const onboarded = await client().post('/api/onboarding-v2', { email: `svc-${crypto.randomUUID().slice(0, 6)}@service.example`, companyName: 'Service Client' }, SERVICE_KEY);
    expect([200, 202]).toContain(onboarded.status);
    expect((await client().get(`/api/onboarding/runs/${onboarded.body.executionId}`, SERVICE_KEY)).status).not.toBe(403);
  });
});
