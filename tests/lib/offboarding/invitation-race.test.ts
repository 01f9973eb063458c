// An invitation issued while the account's offboarding begins, as an
// attacker would try it: to keep a way into an account that is closing (a
// member could accept it, and keep reading the account, after every other
// invitation was revoked). The interleaving is made, not waited for: the
// invitations store runs the offboarding's first step at the chosen moment.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Invitation, InvitationStore } from '../../../lib/accounts/invitations.ts';
import { acceptInvitation, invite, issue } from '../../../lib/accounts/team.ts';
import { Conflict } from '../../../lib/errors.ts';
import { beginOffboarding } from '../../../lib/offboarding/begin.ts';
import { fakeTeam, user } from '../../support/account-fakes.ts';
import { fakeRuns } from '../../support/fakes.ts';
import { ACCOUNT, seedAccount, T0 } from './support.ts';

const RUN = 'acct-1-offboarding';
const request = { accountId: ACCOUNT, companyName: 'Acme', email: 'mallory@evil.example', role: 'admin' as const, invitedBy: { kind: 'service' as const } };

let team: ReturnType<typeof fakeTeam>;
let runs: ReturnType<typeof fakeRuns>;
beforeEach(async () => {
  team = fakeTeam({ now: () => T0 });
  runs = fakeRuns();
  await seedAccount(team.accounts, {
    offboarding: { run_id: RUN, trigger: 'request', reason: 'asked', requested_by: 'user-owner', requested_at: T0.toISOString(), not_before: T0.toISOString() },
  });
});

const begin = (invitations: Pick<InvitationStore, 'ofAccount' | 'revoke'> = team.invitations) =>
  beginOffboarding({ accounts: team.accounts.store, lifecycle: team.accounts.lifecycle, invitations, runs, now: () => T0 }, { accountId: ACCOUNT, runId: RUN });

/** The store, with `hook` run inside open(): before the invitation is written, or after. */
function openingWith(store: InvitationStore, hook: () => Promise<unknown>, when: 'before-write' | 'after-write'): InvitationStore {
  return {
    ...store,
    async open(invitation: Invitation, options) {
      if (when === 'before-write') await hook();
      const opening = await store.open(invitation, options);
      if (when === 'after-write') await hook();
      return opening;
    },
  };
}

describe('an invitation issued while the account closes', () => {
  it('is refused, leaving nothing, once the account is offboarding', async () => {
    expect((await begin()).proceed).toBe(true);
    const refused = issue(team.deps, request);
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toMatchObject({ code: 'account_closed' });
    await expect(invite(team.deps, { ...request, email: 'other@evil.example' })).rejects.toMatchObject({ code: 'account_closed' });
    expect(team.invitations.rows.size).toBe(0);
    expect(team.mailer.sent).toEqual([]);
  });

  it("is revoked and refused when it is written after the offboarding's revocation scan", async () => {
    let began: { proceed: boolean } | undefined;
    // issue() has found the account open; the offboarding begins and scans the invitations before this one is written.
    team.deps.invitations = openingWith(team.invitations, async () => (began = await begin()), 'before-write');
    const refused = issue(team.deps, request);
    await expect(refused).rejects.toMatchObject({ code: 'account_closed' });
    expect(began).toEqual({ portalSlug: 'acme', proceed: true });
    expect([...team.invitations.rows.values()]).toEqual([expect.objectContaining({ email: request.email, status: 'revoked', revoked_by: 'account-closed' })]);
    expect(team.mailer.sent).toEqual([]);
    expect(team.accounts.accounts.get(ACCOUNT)!.status).toBe('offboarding');
  });

  it('is revoked by the offboarding when written before its scan, and the inviter told so', async () => {
    team.deps.invitations = openingWith(team.invitations, () => begin(), 'after-write');
    await expect(issue(team.deps, request)).rejects.toMatchObject({ code: 'account_closed' });
    expect([...team.invitations.rows.values()]).toEqual([expect.objectContaining({ status: 'revoked', revoked_by: 'account-closed' })]);
    expect(team.mailer.sent).toEqual([]);
  });

  it("is refused on acceptance, and revoked, when the offboarding's scan missed it (its index lags the write)", async () => {
    const { invitationId } = await invite(team.deps, request);
    // The scan reads the account's invitations through an eventually consistent index: this one is not there yet.
    expect((await begin({ ...team.invitations, ofAccount: async () => [] })).proceed).toBe(true);
    const mallory = user({ email: request.email });
    await expect(acceptInvitation(team.deps, mallory, invitationId)).rejects.toMatchObject({ code: 'account_closed' });
    expect(await team.memberships.get(ACCOUNT, mallory.id)).toBeUndefined();
    expect(team.invitations.rows.get(invitationId)).toMatchObject({ status: 'revoked', revoked_by: 'account-closed' });
  });
});
