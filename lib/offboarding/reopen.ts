import type { AccountStore } from '../accounts/accounts.ts';
import type { LifecycleStore } from '../accounts/lifecycle.ts';
import { Conflict, NotFound } from '../errors.ts';
import { intakeOf, type OnboardingIntake } from '../onboarding/intake.ts';
import type { StartedRun } from '../onboarding/start-onboarding.ts';

export interface ReopenDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  lifecycle: Pick<LifecycleStore, 'reopen'>;
  /** Onboards the account again, as a run of its own (`runKey` keeps it apart from the first onboarding's run). */
  onboard(accountId: string, intake: OnboardingIntake, runKey: string): Promise<StartedRun>;
  now?: () => Date;
}

/**
 * A closed account opened again by its owner or an admin. One that was
 * onboarded is provisioning once more, and its onboarding runs again with the
 * details it kept: each step finds what the offboarding archived and restores
 * it (tasks unarchived, the folder moved back with a new link) instead of
 * making it anew. One never onboarded is simply active again (no run).
 */
export async function reopenAccount(deps: ReopenDeps, accountId: string, by: string): Promise<{ status: 'provisioning' | 'active'; run?: StartedRun }> {
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new NotFound('No such account, or not one you belong to');
  if (account.status !== 'closed') {
    throw new Conflict(
      account.status === 'offboarding' ? 'The account is still being closed: reopen it once it is closed' : `Only a closed account can be reopened; this one is ${account.status}`,
      'account_not_closed',
    );
  }
  const at = deps.now?.() ?? new Date();
  const onboarded = Boolean(account.onboarding_run_id && account.contact_email);
  if (!(await deps.lifecycle.reopen(accountId, by, at, onboarded ? 'provisioning' : 'active'))) {
    throw new Conflict('The account changed meanwhile; look again and retry', 'account_not_closed');
  }
  if (!onboarded) return { status: 'active' };
  const intake = intakeOf(account, account.contact_email!, account.company_name ?? account.portal_slug ?? account.id);
  return { status: 'provisioning', run: await deps.onboard(accountId, intake, `reopened:${at.toISOString()}`) };
}
