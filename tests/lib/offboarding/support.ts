// What the offboarding use-case tests share: an account in the fakes, and the
// use cases' deps on fakes.
import type { Account } from '../../../lib/accounts/accounts.ts';
import type { OffboardingDeps } from '../../../lib/offboarding/offboard.ts';
import { fakeAccounts, fakeRuns, fakeWorkflow } from '../../support/fakes.ts';

export const ACCOUNT = 'acct-1';
export const T0 = new Date('2026-03-01T10:00:00.000Z');
export const GRACE_SECONDS = 14 * 86_400;

/** An account in the fakes, with the fields given; `status` active unless said. */
export async function seedAccount(accounts: ReturnType<typeof fakeAccounts>, fields: Partial<Account> = {}): Promise<Account> {
  await accounts.store.saveAccountDetails(ACCOUNT, { company_name: 'Acme', contact_email: 'ann@acme.example' });
  const account: Account = { ...accounts.accounts.get(ACCOUNT)!, status: 'active', portal_slug: 'acme', dashboard_slug: 'acme', ...fields };
  accounts.accounts.set(ACCOUNT, account);
  return account;
}

/** The request and subscription use cases' deps on fakes, with a clock the test moves and whether the onboarding run still runs. */
export function offboardingFakes() {
  const accounts = fakeAccounts();
  const runs = fakeRuns();
  const workflow = fakeWorkflow();
  const clock = { now: T0 };
  const onboarding = { running: new Set<string>() };
  const deps: OffboardingDeps = {
    accounts: accounts.store,
    lifecycle: accounts.lifecycle,
    runs,
    workflow,
    onboardingRunning: async (runId) => onboarding.running.has(runId),
    graceSeconds: GRACE_SECONDS,
    now: () => clock.now,
  };
  return { deps, accounts, runs, workflow, clock, onboarding };
}
