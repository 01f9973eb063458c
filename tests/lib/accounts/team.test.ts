// Invitations, roles and leaving, against in-memory ports.
import { describe, expect, it } from 'vitest';
import { acceptInvitation, changeRole, invite, issue, listInvitations, listMembers, removeMember, revokeInvitation, sendDueInvitations } from '../../../lib/accounts/team.ts';
import { Gone } from '../../../lib/errors.ts';
import { recordingLogger } from '../../support/fakes.ts';
import { MemoryRateLimiter } from '../../support/auth-fakes.ts';
import { fakeTeam, user } from '../../support/account-fakes.ts';

const ACCOUNT = 'acct-1';

async function setup() {
  let now = new Date('2026-06-01T10:00:00Z');
  const team = fakeTeam({ now: () => now });
  await team.accounts.store.saveAccountDetails(ACCOUNT, { company_name: 'Acme\r\nBcc: spy@evil.example' });
  const owner = user();
  await team.memberships.join({ accountId: ACCOUNT, userId: owner.id, email: owner.email, role: 'owner', via: 'created' });
  const byOwner = { kind: 'user' as const, userId: owner.id, email: owner.email };
  const later = (days: number) => (now = new Date(now.getTime() + days * 86_400_000));
  return { ...team, owner, byOwner, later };
}

describe('invitations', () => {
  it('are e-mailed at most the account’s limit per window: past it a person inviting gets 429 with nothing kept, and a sync’s invitation is kept unsent', async () => {
    const s = await setup();
    const deps = { ...s.deps, invitationLimit: { limiter: new MemoryRateLimiter(), limit: { limit: 2, windowSeconds: 3600 } } };
    for (const email of ['a@x.example', 'b@x.example']) await invite(deps, { accountId: ACCOUNT, email, role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    await expect(invite(deps, { accountId: ACCOUNT, email: 'c@x.example', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' })).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 3600 });
    expect((await s.invitations.toEmail('c@x.example'))).toEqual([]);
    const log = recordingLogger();
    const sync = (email: string) =>
      issue(deps, { accountId: ACCOUNT, companyName: 'Acme', email, role: 'member', invitedBy: { kind: 'membership-sync', provider: 'memberstack', memberId: `mem_${email}` } }, { keepIfUnsent: log });
    expect(await sync('d@x.example')).toMatchObject({ opened: true, invitation: { email: 'd@x.example', status: 'pending', mail: 'held' } });
    expect(await sync('e@x.example')).toMatchObject({ opened: true, invitation: { email: 'e@x.example', mail: 'held' } });
    // The owners are told once that invitations wait unsent, not once per invitation.
    expect(s.mailer.sent.map((m) => m.to)).toEqual(['a@x.example', 'b@x.example', [s.owner.email]]);
    expect(s.mailer.sent[2]).toMatchObject({ kind: 'invitation-limit', subject: 'Invitation limit reached for Acme' });
    expect(log.entries.map((e) => e.level)).toEqual(['warn', 'warn']);
  });

  it('by a sync count against the account’s owners too: their other account’s membership URL is no second budget', async () => {
    const s = await setup();
    await s.accounts.store.saveAccountDetails('acct-2', { company_name: 'Second' });
    await s.memberships.join({ accountId: 'acct-2', userId: s.owner.id, email: s.owner.email, role: 'owner', via: 'created' });
    const deps = { ...s.deps, invitationLimit: { limiter: new MemoryRateLimiter(), limit: { limit: 3, windowSeconds: 3600 } } };
    const log = recordingLogger();
    const sync = (email: string) =>
      issue(deps, { accountId: 'acct-2', email, role: 'member', invitedBy: { kind: 'membership-sync', provider: 'memberstack', memberId: `mem_${email}` } }, { keepIfUnsent: log });
    await invite(deps, { accountId: ACCOUNT, email: 'a@x.example', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    await invite(deps, { accountId: ACCOUNT, email: 'b@x.example', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    const first = await sync('c@x.example');
    expect(first.opened && first.invitation.mail).toBeUndefined();
    expect(await sync('d@x.example')).toMatchObject({ opened: true, invitation: { mail: 'held' } });
    expect(s.mailer.sent.map((m) => m.to)).toEqual(['a@x.example', 'b@x.example', 'c@x.example', [s.owner.email]]);
    // And the owner's own next invitation is refused: the sync's counted against them.
    await expect(invite(deps, { accountId: ACCOUNT, email: 'e@x.example', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' })).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('open one invitation and send one e-mail when the same address is invited six times at once; the others are 409', async () => {
    const s = await setup();
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => invite(s.deps, { accountId: ACCOUNT, email: 'bo@x.example', role: 'admin', invitedBy: s.byOwner, inviterRole: 'owner' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) expect(r.reason).toMatchObject({ code: 'invitation_pending' });
    expect(await s.invitations.toEmail('bo@x.example')).toHaveLength(1);
    expect(s.mailer.sent).toHaveLength(1);
  });

  it('written for the run (mail later) are e-mailed by sendDueInvitations, once, and marked sent; a failure is the caller’s', async () => {
    const s = await setup();
    const log = recordingLogger();
    const { invitation } = (await issue(s.deps, { accountId: ACCOUNT, email: 'new@x.example', role: 'owner', invitedBy: { kind: 'service' } }, { keepIfUnsent: log, mail: 'later' })) as {
      invitation: { id: string };
    };
    expect(s.mailer.sent).toEqual([]);
    expect(await s.invitations.get(invitation.id)).toMatchObject({ mail: 'due' });
    const send = s.mailer.send.bind(s.mailer);
    s.mailer.send = async () => {
      throw new Error('resend is down');
    };
    await expect(sendDueInvitations({ ...s.deps, mailer: s.mailer }, ACCOUNT)).rejects.toThrow('resend is down');
    expect(await s.invitations.get(invitation.id)).toMatchObject({ mail: 'due' });
    s.mailer.send = send;
    expect(await sendDueInvitations({ ...s.deps, mailer: s.mailer }, ACCOUNT)).toEqual([invitation.id]);
    expect(await sendDueInvitations({ ...s.deps, mailer: s.mailer }, ACCOUNT)).toEqual([]);
    expect(s.mailer.sent).toEqual([expect.objectContaining({ to: 'new@x.example', kind: 'invitation', idempotencyKey: `invitation/${invitation.id}` })]);
    expect(await s.invitations.get(invitation.id)).toMatchObject({ mail: 'sent' });
  });

  it('are counted per inviting person too, across their accounts: a new account is no new budget; the service counts per account only', async () => {
    const s = await setup();
    await s.accounts.store.saveAccountDetails('acct-2', { company_name: 'Second' });
    await s.memberships.join({ accountId: 'acct-2', userId: s.owner.id, email: s.owner.email, role: 'owner', via: 'created' });
    const deps = { ...s.deps, invitationLimit: { limiter: new MemoryRateLimiter(), limit: { limit: 2, windowSeconds: 3600 } } };
    const byOwner = (accountId: string, email: string) => invite(deps, { accountId, email, role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    await byOwner(ACCOUNT, 'a@x.example');
    await byOwner(ACCOUNT, 'b@x.example');
    await expect(byOwner('acct-2', 'c@x.example')).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 3600 });
    expect(await s.invitations.ofAccount('acct-2')).toEqual([]);
    // The internal API key's invitations count against the account only.
    await invite(deps, { accountId: 'acct-2', email: 'd@x.example', role: 'member', invitedBy: { kind: 'service' } });
    await invite(deps, { accountId: 'acct-2', email: 'e@x.example', role: 'member', invitedBy: { kind: 'service' } });
    await expect(invite(deps, { accountId: 'acct-2', email: 'f@x.example', role: 'member', invitedBy: { kind: 'service' } })).rejects.toMatchObject({ code: 'rate_limited' });
    expect(s.mailer.sent.map((m) => m.to)).toEqual(['a@x.example', 'b@x.example', 'd@x.example', 'e@x.example']);
  });

  it('e-mail the invitee a portal link, and let them in only signed in with that verified address', async () => {
    const s = await setup();
    const invitation = await invite(s.deps, { accountId: ACCOUNT, email: 'Bo@Example.com', role: 'admin', invitedBy: s.byOwner, inviterRole: 'owner' });
    expect(invitation).toMatchObject({ email: 'bo@example.com', role: 'admin', status: 'pending', invitedBy: s.byOwner, expiresAt: '2026-06-08T10:00:00.000Z' });
    const [mail] = s.mailer.sent;
    expect(mail).toMatchObject({ to: 'bo@example.com', kind: 'invitation' });
    expect(mail!.text).toContain(`https://portal.test/invitations/${invitation.invitationId}`);
    // The company name came from a user: one line in the subject, whatever it holds.
    expect(mail!.subject).not.toMatch(/[\r\n]/);

    await expect(acceptInvitation(s.deps, user({ email: 'eve@example.com' }), invitation.invitationId)).rejects.toMatchObject({ code: 'invitation_not_for_you' });
    await expect(acceptInvitation(s.deps, user({ email: 'bo@example.com', emailConfirmed: false }), invitation.invitationId)).rejects.toMatchObject({
      code: 'email_not_confirmed',
    });
    const bo = user({ email: 'bo@example.com' });
    expect(await acceptInvitation(s.deps, bo, invitation.invitationId)).toEqual({ accountId: ACCOUNT, role: 'admin' });
    expect(await s.memberships.get(ACCOUNT, bo.id)).toMatchObject({ role: 'admin', status: 'active', joined_via: 'invitation', invitation_id: invitation.invitationId });
    await expect(acceptInvitation(s.deps, bo, invitation.invitationId)).rejects.toMatchObject({ code: 'invitation_already_used' });
  });

  it('are accepted once when accepted twice at once', async () => {
    const s = await setup();
    const { invitationId } = await invite(s.deps, { accountId: ACCOUNT, email: 'bo@example.com', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    const bo = user({ email: 'bo@example.com' });
    const answers = await Promise.all([acceptInvitation(s.deps, bo, invitationId), acceptInvitation(s.deps, bo, invitationId)]);
    expect(answers).toEqual([{ accountId: ACCOUNT, role: 'member' }, { accountId: ACCOUNT, role: 'member' }]);
    expect((await listMembers(s.deps, ACCOUNT)).length).toBe(2);
  });

  it('lapse after seven days, and can be revoked; either way with a clear code', async () => {
    const s = await setup();
    const lapsing = await invite(s.deps, { accountId: ACCOUNT, email: 'late@example.com', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    const revoked = await invite(s.deps, { accountId: ACCOUNT, email: 'gone@example.com', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    expect(await revokeInvitation(s.deps, ACCOUNT, revoked.invitationId, s.owner.id)).toMatchObject({ status: 'revoked' });
    await expect(revokeInvitation(s.deps, ACCOUNT, revoked.invitationId, s.owner.id)).rejects.toMatchObject({ code: 'invitation_not_pending' });
    await expect(acceptInvitation(s.deps, user({ email: 'gone@example.com' }), revoked.invitationId)).rejects.toMatchObject({ code: 'invitation_revoked' });
    s.later(7);
    await expect(acceptInvitation(s.deps, user({ email: 'late@example.com' }), lapsing.invitationId)).rejects.toMatchObject({ code: 'invitation_expired' });
    expect((await listInvitations(s.deps, ACCOUNT)).map((i) => i.status).sort()).toEqual(['expired', 'revoked']);
  });

  it('cannot be revoked through another account, nor accepted when unknown', async () => {
    const s = await setup();
    const { invitationId } = await invite(s.deps, { accountId: ACCOUNT, email: 'bo@example.com', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    await expect(revokeInvitation(s.deps, 'acct-other', invitationId, 'x')).rejects.toMatchObject({ code: 'not_found' });
    await expect(acceptInvitation(s.deps, user(), 'no-such-invitation')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuse an address that is already a member or already invited, and an admin making an owner', async () => {
    const s = await setup();
    await expect(invite(s.deps, { accountId: ACCOUNT, email: s.owner.email, role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' })).rejects.toMatchObject({
      code: 'already_member',
    });
    await invite(s.deps, { accountId: ACCOUNT, email: 'bo@example.com', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
    await expect(invite(s.deps, { accountId: ACCOUNT, email: 'bo@example.com', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' })).rejects.toMatchObject({
      code: 'invitation_pending',
    });
    await expect(invite(s.deps, { accountId: ACCOUNT, email: 'cy@example.com', role: 'owner', invitedBy: s.byOwner, inviterRole: 'admin' })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('stand only while their inviter could still send them: refused as revoked (and marked so) once the inviter is removed or lowered', async () => {
    const s = await setup();
    const adm = user();
    await s.memberships.join({ accountId: ACCOUNT, userId: adm.id, email: adm.email, role: 'admin', via: 'invitation' });
    const byAdmin = { kind: 'user' as const, userId: adm.id, email: adm.email };
    const planted = await invite(s.deps, { accountId: ACCOUNT, email: 'alt@example.com', role: 'admin', invitedBy: byAdmin, inviterRole: 'admin' });
    const asMember = await invite(s.deps, { accountId: ACCOUNT, email: 'mo@example.com', role: 'member', invitedBy: byAdmin, inviterRole: 'admin' });
    const byService = await invite(s.deps, { accountId: ACCOUNT, email: 'svc@example.com', role: 'admin', invitedBy: { kind: 'service' } });
    // Lowered behind the team's back (no sweep ran, as for an invitation sent in the very moment): acceptance checks again.
    expect(await s.memberships.setRole(ACCOUNT, adm.id, 'admin', 'member')).toBe('changed');
    for (const [invitation, email] of [[planted, 'alt@example.com'], [asMember, 'mo@example.com']] as const) {
      await expect(acceptInvitation(s.deps, user({ email }), invitation.invitationId)).rejects.toBeInstanceOf(Gone);
      await expect(acceptInvitation(s.deps, user({ email }), invitation.invitationId)).rejects.toMatchObject({ code: 'invitation_revoked' });
      expect(await s.invitations.get(invitation.invitationId)).toMatchObject({ status: 'revoked', revoked_by: 'inviter-lost-role' });
    }
    expect((await listMembers(s.deps, ACCOUNT)).map((m) => m.email)).not.toContain('alt@example.com');
    // The internal API key's invitation does not depend on anyone's role.
    expect(await acceptInvitation(s.deps, user({ email: 'svc@example.com' }), byService.invitationId)).toMatchObject({ role: 'admin' });
  });

  it('are revoked when their inviter is removed, leaves, or is lowered below them; the rest stand', async () => {
    const s = await setup();
    const [co, adm, leaver] = [user(), user(), user()];
    for (const [who, role] of [[co, 'owner'], [adm, 'admin'], [leaver, 'admin']] as const) {
      await s.memberships.join({ accountId: ACCOUNT, userId: who.id, email: who.email, role, via: 'invitation' });
    }
    const by = (who: typeof co, role: 'owner' | 'admin', email: string, as: 'owner' | 'admin' | 'member') =>
      invite(s.deps, { accountId: ACCOUNT, email, role: as, invitedBy: { kind: 'user', userId: who.id, email: who.email }, inviterRole: role });
    const coOwner = await by(co, 'owner', 'o@example.com', 'owner');
    const coAdmin = await by(co, 'owner', 'a@example.com', 'admin');
    const admMember = await by(adm, 'admin', 'm@example.com', 'member');
    const leaverMember = await by(leaver, 'admin', 'l@example.com', 'member');
    const owners = await by(s.owner, 'owner', 'x@example.com', 'member');

    await changeRole(s.deps, ACCOUNT, co.id, 'admin');
    await removeMember(s.deps, ACCOUNT, adm.id);
    await removeMember(s.deps, ACCOUNT, leaver.id);
    const status = new Map((await listInvitations(s.deps, ACCOUNT)).map((i) => [i.invitationId, i.status]));
    expect([coOwner, coAdmin, admMember, leaverMember, owners].map((i) => status.get(i.invitationId))).toEqual(['revoked', 'pending', 'revoked', 'revoked', 'pending']);
  });

  it('leave nothing behind when the e-mail cannot be sent', async () => {
    const s = await setup();
    s.deps.mailer = { send: async () => Promise.reject(new Error('resend down')) };
    await expect(invite(s.deps, { accountId: ACCOUNT, email: 'bo@example.com', role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' })).rejects.toThrow('resend down');
    expect((await listInvitations(s.deps, ACCOUNT)).map((i) => i.status)).toEqual(['revoked']);
  });
});

describe('members and roles', () => {
  it('never lose the last owner: not by demotion, not by removal, not by leaving', async () => {
    const s = await setup();
    await expect(changeRole(s.deps, ACCOUNT, s.owner.id, 'admin')).rejects.toMatchObject({ code: 'last_owner' });
    await expect(removeMember(s.deps, ACCOUNT, s.owner.id)).rejects.toMatchObject({ code: 'last_owner' });
    const second = user();
    await s.memberships.join({ accountId: ACCOUNT, userId: second.id, email: second.email, role: 'member', via: 'invitation' });
    expect(await changeRole(s.deps, ACCOUNT, second.id, 'owner')).toMatchObject({ role: 'owner' });
    // Two owners demoting each other at once: one of them stays an owner.
    const outcomes = await Promise.allSettled([changeRole(s.deps, ACCOUNT, s.owner.id, 'member'), changeRole(s.deps, ACCOUNT, second.id, 'member')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((await listMembers(s.deps, ACCOUNT)).filter((m) => m.role === 'owner')).toHaveLength(1);
  });

  it('revoke every invitation still open to a member when they are removed or leave, and bar a sync from inviting them again', async () => {
    const s = await setup();
    for (const leaves of [false, true]) {
      const bo = user();
      const first = await invite(s.deps, { accountId: ACCOUNT, email: bo.email, role: 'member', invitedBy: s.byOwner, inviterRole: 'owner' });
      await acceptInvitation(s.deps, bo, first.invitationId);
      // A sync that looked before they joined, and invited them after: an invitation open to a member.
      const raced = await issue(s.deps, { accountId: ACCOUNT, email: bo.email, role: 'admin', invitedBy: { kind: 'membership-sync', provider: 'memberstack', memberId: 'mem_bo' } });
      expect(raced).toMatchObject({ opened: true });
      await removeMember(s.deps, ACCOUNT, bo.id);
      expect((await s.invitations.toEmail(bo.email)).filter((i) => i.status === 'pending'), leaves ? 'left' : 'removed').toEqual([]);
      await expect(acceptInvitation(s.deps, bo, (raced as { invitation: { id: string } }).invitation.id)).rejects.toMatchObject({ code: 'invitation_revoked' });
      const again = await issue(
        s.deps,
        { accountId: ACCOUNT, email: bo.email, role: 'member', invitedBy: { kind: 'membership-sync', provider: 'memberstack', memberId: 'mem_bo' } },
        { unlessBarred: true },
      );
      expect(again).toEqual({ opened: false, why: 'barred' });
    }
  });

  it('end a removed member’s membership, and say so for one who is not a member', async () => {
    const s = await setup();
    const bo = user();
    await s.memberships.join({ accountId: ACCOUNT, userId: bo.id, email: bo.email, role: 'member', via: 'invitation' });
    await removeMember(s.deps, ACCOUNT, bo.id);
    expect(await s.memberships.get(ACCOUNT, bo.id)).toMatchObject({ status: 'removed' });
    await expect(removeMember(s.deps, ACCOUNT, bo.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await listMembers(s.deps, ACCOUNT)).map((m) => m.userId)).toEqual([s.owner.id]);
  });
});
