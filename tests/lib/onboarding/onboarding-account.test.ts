import { describe, expect, it } from 'vitest';
import { withOnboardingAccount } from '../../../lib/onboarding/onboarding-account.ts';
import { createLogger } from '../../../lib/log.ts';
import { ENHANCED_WORKFLOW } from '../../../lib/onboarding/outcomes.ts';
import { fakeTeam, user } from '../../support/account-fakes.ts';

const service = { caller: { kind: 'service' as const } };
const intake = (email: string) => ({ email, companyName: 'Acme' });

/** The account a submission goes to (the work being only to name it). */
type Args = Parameters<typeof withOnboardingAccount>;
const accountOf = (d: Args[0], grant: Args[1], submitted: Args[2]) => withOnboardingAccount(d, grant, submitted, async (id) => id);

function deps() {
  const team = fakeTeam();
  return { team, deps: { accounts: team.accounts.store, memberships: team.memberships, team: team.deps, log: createLogger({}, 'error') } };
}

describe('withOnboardingAccount, for the portal backend (service key)', () => {
  it('makes one account and one owner invitation when the same address is submitted twice at once', async () => {
    const { team, deps: d } = deps();
    const ids = await Promise.all([accountOf(d, service, intake('a@acme.test')), accountOf(d, service, intake('a@acme.test'))]);
    expect(new Set(ids).size).toBe(1);
    expect([...team.invitations.rows.values()].filter((i) => i.email === 'a@acme.test')).toEqual([expect.objectContaining({ role: 'owner', mail: 'due' })]);
    // The run's e-mail step sends it (sendDueInvitations), not the request.
    expect(team.mailer.sent).toHaveLength(0);
  });

  it("writes a new owner's invitation unsent before the work, for the run to e-mail; a workflow without an e-mail step has it e-mailed here", async () => {
    const { team, deps: d } = deps();
    const seen: string[] = [];
    await withOnboardingAccount(d, service, intake('h@acme.test'), async (id) => {
      seen.push(`work on ${id}: ${team.invitations.rows.size} invitation written, ${team.mailer.sent.length} e-mails sent`);
    });
    expect(seen).toEqual([expect.stringMatching(/: 1 invitation written, 0 e-mails sent$/)]);
    expect([...team.invitations.rows.values()]).toEqual([expect.objectContaining({ email: 'h@acme.test', mail: 'due' })]);

    await withOnboardingAccount(d, service, intake('i@acme.test'), async (id) => id, ENHANCED_WORKFLOW);
    expect(team.mailer.sent.map((m) => m.to)).toEqual(['i@acme.test']);
    expect([...team.invitations.rows.values()].find((i) => i.email === 'i@acme.test')).not.toHaveProperty('mail');
  });

  it('finds the account an earlier onboarding of the address made, and invites nobody again', async () => {
    const { team, deps: d } = deps();
    const first = await accountOf(d, service, intake('b@acme.test'));
    const again = await accountOf(d, service, intake('b@acme.test'));
    expect(again).toBe(first);
    expect(team.invitations.rows.size).toBe(1);
  });

  it('is not led by another account’s record of the address: a synced member record names no account to onboard', async () => {
    const { team, deps: d } = deps();
    await team.accounts.store.claimMember({ email: 'e@acme.test', account_id: 'someone-elses', role: 'member' });
    const id = await accountOf(d, service, intake('e@acme.test'));
    expect(id).not.toBe('someone-elses');
    expect(team.accounts.members.of(id, 'e@acme.test')).toMatchObject({ role: 'owner' });
    expect(team.accounts.members.of('someone-elses', 'e@acme.test')).toMatchObject({ role: 'member' });
    expect([...team.invitations.rows.values()].map((i) => [i.account_id, i.role])).toEqual([[id, 'owner']]);
  });

  it('holds the lookup of an earlier onboarding (503, retryable) while an upgraded stage copies its member records; a named account goes on', async () => {
    const { team, deps: d } = deps();
    const first = await accountOf(d, service, intake('f@acme.test'));
    const held = { ...d, copyingMemberRecords: true };
    await expect(accountOf(held, service, intake('f@acme.test'))).rejects.toMatchObject({ code: 'member_records_copying', retryAfterSeconds: 300 });
    expect(await accountOf(held, { ...service, account: { id: first } }, intake('f@acme.test'))).toBe(first);
    expect(team.invitations.rows.size).toBe(1);
  });

  it('goes to the account the address owns, and never to one it was only an admin of or was removed from, whatever member records say', async () => {
    const { team, deps: d } = deps();
    const email = 'g@acme.test';
    // Their own onboardings as an admin of one account and as an owner of another wrote owner records in both.
    await team.memberships.join({ accountId: 'acct-admin', userId: 'u-g', email, role: 'admin', via: 'invitation' });
    await team.memberships.join({ accountId: 'acct-left', userId: 'u-other', email: 'other@acme.test', role: 'owner', via: 'created' });
    await team.memberships.join({ accountId: 'acct-left', userId: 'u-g', email, role: 'owner', via: 'invitation' });
    for (const account_id of ['acct-admin', 'acct-left']) await team.accounts.store.claimMember({ email, account_id, role: 'owner' });
    expect(await team.memberships.remove('acct-left', 'u-g', 'owner')).toBe('changed');
    const fresh = await accountOf(d, service, intake(email));
    expect(['acct-admin', 'acct-left']).not.toContain(fresh);

    await team.memberships.join({ accountId: 'acct-own', userId: 'u-g', email, role: 'owner', via: 'created' });
    expect(await accountOf(d, service, intake(email))).toBe('acct-own');
  });

  it('gives different addresses different accounts', async () => {
    const { deps: d } = deps();
    expect(await accountOf(d, service, intake('c@acme.test'))).not.toBe(await accountOf(d, service, intake('d@acme.test')));
  });
});

describe('onboardingAccount, for a signed-in user', () => {
  it('refuses a form carrying someone else’s address', async () => {
    const { deps: d } = deps();
    const me = user({ email: 'me@acme.test' });
    await expect(accountOf(d, { caller: { kind: 'user', user: me } }, intake('ceo@bigcorp.test'))).rejects.toMatchObject({ code: 'not_your_email' });
  });
});
