// Which account an onboarding submission is for, from the grant the route's
// access rule made. A signed-in user onboards the granted account (named, or
// their only one) or opens their first as its owner; the form's e-mail must be
// their own verified one. The portal's backend (the internal key) onboards the
// named account, else the account this address owns, else the account an
// earlier onboarding of the address opened whose invitation is still out, else
// a new one, whose owner the person becomes by accepting the invitation written
// here. An e-mail address alone never makes anyone a member of anything.
import { heldForCopy, normaliseEmail, type AccountStore } from '../accounts/accounts.ts';
import { ownerships, type MembershipStore } from '../accounts/memberships.ts';
import { derivedAccountId, openFirstAccountFor } from '../accounts/open-account.ts';
import { issue, type TeamDeps } from '../accounts/team.ts';
import { Forbidden, NotFound } from '../errors.ts';
import type { Grant } from '../access/caller.ts';
import type { Logger } from '../log.ts';
import { workflows, type Integration, type WorkflowName } from '../provisioning/registry.ts';
import type { OnboardingIntake } from './intake.ts';

export interface OnboardingAccountDeps {
  accounts: Pick<AccountStore, 'getAccount' | 'saveAccountDetails' | 'claimMember'>;
  memberships: Pick<MembershipStore, 'join' | 'get' | 'ofEmail'>;
  /** How a new account's owner is invited, when the internal service onboards someone who has not joined yet. */
  team: TeamDeps;
  log: Logger;
  /** While an upgraded stage copies its member records, the lookup of an earlier onboarding's account waits for the copy. */
  copyingMemberRecords?: boolean;
}

/**
 * Runs the submission's work (its run, waited for) on its account. When the
 * submission opens the account, the owner's invitation is written first,
 * unsent: the run's e-mail step sends it (so it is in the run's outcome, and
 * a failure to send it is retried and followed up like any of its e-mails).
 * A workflow without an e-mail step (enhanced onboarding) has it e-mailed
 * here, a failure logged, the invitation kept.
 */
export async function withOnboardingAccount<T>(
  deps: OnboardingAccountDeps,
  grant: Grant,
  intake: OnboardingIntake,
  work: (accountId: string) => Promise<T>,
  workflow: WorkflowName = 'onboarding',
): Promise<T> {
  return work(await accountFor(deps, grant, intake, workflow));
}

async function accountFor(deps: OnboardingAccountDeps, grant: Grant, intake: OnboardingIntake, workflow: WorkflowName): Promise<string> {
  const { caller } = grant;
  if (caller.kind === 'user') {
    if (normaliseEmail(caller.user.email) !== intake.email) {
      throw new Forbidden('The onboarding form must carry your own e-mail address', 'not_your_email');
    }
    return grant.account?.id ?? (await openFirstAccountFor(deps, caller.user)).id;
  }
  if (grant.account) {
    if (!(await deps.accounts.getAccount(grant.account.id))) throw new NotFound('No such account');
    return grant.account.id;
  }
  // Who owns what is the memberships' to say: a member record only says whom an onboarding was for,
  // and a person removed from an account, or only ever its admin, keeps theirs.
  const [owned] = ownerships(await deps.memberships.ofEmail(intake.email));
  if (owned) return owned.account_id;
  if (deps.copyingMemberRecords) throw heldForCopy();
  // The account an earlier onboarding opened for this address, or a new one. Concurrent submissions of
  // one address derive the same id, and only the one whose contact record is written invites the owner.
  const accountId = derivedAccountId(`onboarding:${intake.email}`);
  await deps.accounts.saveAccountDetails(accountId, { company_name: intake.companyName, contact_email: intake.email });
  const { member, created } = await deps.accounts.claimMember({ email: intake.email, account_id: accountId, role: 'owner' });
  if (!created && member.role === 'owner') return accountId;
  const runSendsIt = (workflows[workflow].integrations as readonly Integration[]).includes('resend');
  await issue(
    deps.team,
    { accountId, companyName: intake.companyName, email: intake.email, role: 'owner', invitedBy: { kind: 'service' } },
    { keepIfUnsent: deps.log, mail: runSendsIt ? 'later' : 'now' },
  );
  return accountId;
}
