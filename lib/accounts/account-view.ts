// An account as its members see it: company, portal slug, plan and
// subscription, its status in its life cycle, the latest onboarding's (and
// offboarding's) outcome per integration, and how many people are in it. Also the short form `me` lists for each of a user's accounts.
import type { Role } from '../permissions.ts';
import type { Account, AccountStore } from './accounts.ts';
import { activeOnly, type MembershipStore } from './memberships.ts';

/** What the latest onboarding run of an account came to (onboarding's run records, seen from here). */
export interface OnboardingOutcome {
  runId: string;
  status: 'running' | 'succeeded' | 'failed';
  integrations?: Record<string, string>;
  finishedAt?: string;
}

export interface AccountViewDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  memberships: Pick<MembershipStore, 'ofAccount' | 'ofUser'>;
  onboardingOutcome(runId: string): Promise<OnboardingOutcome | undefined>;
}

export interface AccountSummary {
  accountId: string;
  role: Role;
  companyName: string | null;
  portalSlug: string | null;
  plan: string | null;
  subscriptionStatus: string | null;
}

export interface AccountView extends AccountSummary {
  status: Account['status'];
  companyUrl: string | null;
  storageLink: string | null;
  memberCount: number;
  onboarding: OnboardingOutcome | null;
  /** The client leaving, once asked for or scheduled: why, when its run begins, and the run. */
  offboarding: {
    reason: string;
    trigger: 'request' | 'subscription';
    notBefore: string;
    closedAt: string | null;
    run: OnboardingOutcome | null;
  } | null;
  createdAt: string;
}

const summaryOf = (account: Account, role: Role): AccountSummary => ({
  accountId: account.id,
  role,
  companyName: account.company_name ?? null,
  portalSlug: account.portal_slug ?? null,
  plan: account.plan ?? null,
  subscriptionStatus: account.subscription_status ?? null,
});

/** The account, for a caller whose role in it is `role` (the guard has checked they are a member). */
export async function accountView(deps: AccountViewDeps, accountId: string, role: Role): Promise<AccountView | undefined> {
  const [account, members] = await Promise.all([deps.accounts.getAccount(accountId), deps.memberships.ofAccount(accountId)]);
  if (!account) return undefined;
  return {
    ...summaryOf(account, role),
    status: account.status,
    companyUrl: account.company_url ?? null,
    storageLink: account.storage_link ?? null,
    memberCount: activeOnly(members).length,
    onboarding: (account.onboarding_run_id && (await deps.onboardingOutcome(account.onboarding_run_id))) || null,
    offboarding: account.offboarding
      ? {
          reason: account.offboarding.reason,
          trigger: account.offboarding.trigger,
          notBefore: account.offboarding.not_before,
          closedAt: account.closed_at ?? null,
          run: (await deps.onboardingOutcome(account.offboarding.run_id)) ?? null,
        }
      : null,
    createdAt: account.created_at,
  };
}

/** Every account the user is an active member of, oldest membership first. */
export async function accountsOf(deps: Pick<AccountViewDeps, 'accounts' | 'memberships'>, userId: string): Promise<AccountSummary[]> {
  const memberships = activeOnly(await deps.memberships.ofUser(userId)).sort((a, b) => a.joined_at.localeCompare(b.joined_at));
  const accounts = await Promise.all(memberships.map((m) => deps.accounts.getAccount(m.account_id)));
  return memberships.flatMap((m, i) => (accounts[i] ? [summaryOf(accounts[i], m.role)] : []));
}
