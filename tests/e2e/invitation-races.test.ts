// Invitations under concurrency and across every way one is made, over HTTP,
// tried as an attacker would: the same invitation sent six times at once, one
// member delivered five times at once by the membership sync, a removed member
// reaching for an invitation left over from those races, and one person's
// invitation e-mails spread over a direct invite in one account and the
// membership sync of another.
import { describe, expect, it } from 'vitest';
import { errorCode, stack } from '../support/http.ts';
import { invitationsTo, join, owner, person, userIdOf } from '../support/team.ts';
import { mailTo, newEmail } from '../support/users.ts';
import { deliverWebhook, membershipMember } from '../support/webhooks.ts';

const invitationMails = async (email: string) => (await mailTo(email)).filter((m) => m.subject.startsWith('Join '));

/** `count` member.created deliveries of one member, each a distinct event (its own time), posted at once. */
const memberCreatedAtOnce = (url: string, memberId: string, email: string, count: number) =>
  Promise.all(
    Array.from({ length: count }, (_, i) =>
      deliverWebhook(url, JSON.stringify({ event: 'member.created', timestamp: Date.now() - 10_000 + i, payload: membershipMember(memberId, email) })),
    ),
  );

async function membershipUrl(o: Awaited<ReturnType<typeof owner>>) {
  const settings = await o.client.get(`/api/accounts/${o.accountId}/webhooks`, o.auth);
  expect(settings.status).toBe(200);
  return settings.body.urls.membership as string;
}

describe('an invitation sent many times at once', () => {
  it('is one open invitation and one e-mail, however many requests raced: the others are 409 invitation_pending', async () => {
    const o = await owner();
    const email = newEmail();
    const replies = await Promise.all(Array.from({ length: 6 }, () => o.client.post(`/api/accounts/${o.accountId}/invitations`, { email, role: 'admin' }, o.auth)));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const refused of replies.filter((r) => r.status === 409)) expect(errorCode(refused)).toBe('invitation_pending');
    expect((await invitationsTo(o, o.accountId, email)).map((i) => i.status)).toEqual(['pending']);
    expect(await invitationMails(email)).toHaveLength(1);
  });

  it('is one open invitation and one e-mail for five membership deliveries of one member at once', async () => {
    const o = await owner();
    const email = newEmail();
    const replies = await memberCreatedAtOnce(await membershipUrl(o), `mem_${crypto.randomUUID().slice(0, 8)}`, email, 5);
    for (const reply of replies) expect(reply.status).toBe(200);
    expect((await invitationsTo(o, o.accountId, email)).map((i) => i.status)).toEqual(['pending']);
    expect(await invitationMails(email)).toHaveLength(1);
  });
});

describe('a member who is removed', () => {
  it('cannot come back through any invitation left from a race, and no later sync invites them again', async () => {
    const o = await owner();
    const url = await membershipUrl(o);
    const mallory = await person();
    const memberId = `mem_${crypto.randomUUID().slice(0, 8)}`;
    // Invited by the owner six times and by the sync five times, all at once.
    const [invited] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => o.client.post(`/api/accounts/${o.accountId}/invitations`, { email: mallory.email, role: 'admin' }, o.auth))),
      memberCreatedAtOnce(url, memberId, mallory.email, 5),
    ]);
    const ids = new Set([
      ...invited.filter((r) => r.status === 201).map((r) => r.body.invitationId as string),
      ...(await invitationsTo(o, o.accountId, mallory.email)).map((i) => i.invitationId),
    ]);
    const [first, ...others] = [...ids];
    expect((await mallory.client.post(`/api/invitations/${first}/accept`, undefined, mallory.auth)).status).toBe(200);

    const malloryId = await userIdOf(o, o.accountId, mallory.email);
    expect((await o.client.delete(`/api/accounts/${o.accountId}/members/${malloryId}`, o.auth)).status).toBe(204);
    // Whatever the races left, nothing to her is open once she is removed.
    expect((await invitationsTo(o, o.accountId, mallory.email)).filter((i) => i.status === 'pending')).toEqual([]);
    for (const id of [first!, ...others]) {
      const back = await mallory.client.post(`/api/invitations/${id}/accept`, undefined, mallory.auth);
      expect([409, 410], `invitation ${id}: ${back.status}`).toContain(back.status);
    }
    expect((await mallory.client.get(`/api/accounts/${o.accountId}`, mallory.auth)).status).toBe(404);

    // Her profile edited at the membership service, delivered five times at once: still not invited.
    const mailed = (await invitationMails(mallory.email)).length;
    for (const reply of await memberCreatedAtOnce(url, memberId, mallory.email, 5)) expect(reply.status).toBe(200);
    expect((await invitationsTo(o, o.accountId, mallory.email)).filter((i) => i.status === 'pending')).toEqual([]);
    expect(await invitationMails(mallory.email)).toHaveLength(mailed);
    expect((await mallory.client.get('/api/auth/me', mallory.auth)).body.invitations).toEqual([]);
  });

  it('who leaves is not invited back by a later sync, as one removed is not', async () => {
    const o = await owner();
    const bo = await person();
    await join(o, o.accountId, bo, 'member');
    expect((await bo.client.post(`/api/accounts/${o.accountId}/leave`, undefined, bo.auth)).status).toBe(204);
    const email = bo.email;
    for (const reply of await memberCreatedAtOnce(await membershipUrl(o), `mem_${crypto.randomUUID().slice(0, 8)}`, email, 3)) expect(reply.status).toBe(200);
    expect((await invitationsTo(o, o.accountId, email)).filter((i) => i.status === 'pending')).toEqual([]);
  });
});

describe('the invitation e-mail limit', () => {
  it('holds for one person across their direct invitations and their other account’s membership sync; the owner is told once', { timeout: 240_000 }, async () => {
    // The attack: one person sent the limit's worth of invitations directly, then posted as many
    // member.created events to their second account's membership URL: every one was e-mailed.
    const limit = Number((stack().env.RATE_LIMIT_INVITATIONS || '50/3600').split('/')[0]);
    const p = await owner(`Prize Draw ${crypto.randomUUID().slice(0, 6)}`);
    const second = await p.client.post('/api/accounts', { companyName: 'You won - claim at prize.example' }, p.auth);
    expect(second.status).toBe(201);
    const b = { ...p, accountId: second.body.accountId as string };
    const url = await membershipUrl(b);

    const direct = Math.ceil(limit * 0.6);
    const target = (i: number) => `victim-${i}-${crypto.randomUUID().slice(0, 8)}@target.example`;
    for (let i = 0; i < direct; i++) expect((await p.client.post(`/api/accounts/${p.accountId}/invitations`, { email: target(i) }, p.auth)).status, `${i}`).toBe(201);

    const synced = Array.from({ length: limit - direct + 10 }, (_, i) => target(direct + i));
    for (const [i, email] of synced.entries()) {
      const reply = await deliverWebhook(url, JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: membershipMember(`mem_${i}_${crypto.randomUUID().slice(0, 6)}`, email) }));
      expect(reply.body, email).toEqual({ received: true, outcome: 'applied' });
    }
    // Every synced person is invited (they find it on signing in); only the limit's worth were e-mailed.
    const listed = (await b.client.get(`/api/accounts/${b.accountId}/invitations`, b.auth)).body.invitations as { email: string; status: string }[];
    expect(listed.filter((i) => synced.includes(i.email) && i.status === 'pending')).toHaveLength(synced.length);
    const mailed = (await Promise.all(synced.map(invitationMails))).filter((m) => m.length > 0);
    expect(mailed).toHaveLength(limit - direct);

    // The person's own next invitation, in either account, is refused.
    const more = await p.client.post(`/api/accounts/${p.accountId}/invitations`, { email: target(9999) }, p.auth);
    expect([more.status, errorCode(more)]).toEqual([429, 'rate_limited']);
    // The owner was told once that invitations wait unsent, not once per event.
    expect((await mailTo(p.email)).filter((m) => m.subject.startsWith('Invitation limit reached'))).toHaveLength(1);
  });
});
