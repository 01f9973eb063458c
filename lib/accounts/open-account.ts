// A person creates an account, and is its owner: the one way, besides
// accepting an invitation, to become a member of one.
import { createHash, randomUUID } from 'node:crypto';
import type { RateLimit } from '../config.ts';
import type { IdentityUser } from '../identity/identity.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { normaliseEmail, type Account, type AccountDetails, type AccountStore } from './accounts.ts';
import type { Membership, MembershipStore } from './memberships.ts';

export interface OpenAccountDeps {
  accounts: Pick<AccountStore, 'saveAccountDetails' | 'claimMember'>;
  memberships: Pick<MembershipStore, 'join' | 'get'>;
  /**
   * How many accounts a person may open per window, for openings they ask
   * for (POST /api/accounts): each is a fresh invitation budget and a fresh
   * company name in the agency's e-mails.
   */
  openingLimit?: { limiter: RateLimiter; limit: RateLimit };
  newId?: () => string;
}

/** An account id (UUID-shaped) derived from what makes the account: concurrent makers of the same thing converge on one account. */
export function derivedAccountId(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id of a person's first account: a double submit at signup
 * (verification, checkout and onboarding can each open it) converges on one
 * account instead of making two.
 */
export const firstAccountIdOf = (userId: string) => derivedAccountId(`first-account:${userId}`);

/**
 * Opens an account for the user, with them as its owner and its contact (the
 * member record an onboarding by the portal's backend finds it by), and
 * answers it. It never touches an account the user has a membership of: the
 * first is at firstAccountIdOf(user) only while they have none there (a fresh
 * opening, or a half-done one: the account saved, the owner not yet joined,
 * which is finished); once they joined it, in any role, or left or were
 * removed, every opening gets a fresh id. So opening an account never
 * rewrites one they were demoted in, and leaving one is never undone. Past
 * the opening limit (when the deps hold one): 429, nothing written.
 */
export async function openAccountFor(
  deps: OpenAccountDeps,
  user: Pick<IdentityUser, 'id' | 'email'>,
  details: AccountDetails = {},
  name?: string,
): Promise<Account> {
  await withinOpeningLimit(deps, user);
  return openBeside(deps, user, await deps.memberships.get(firstAccountIdOf(user.id), user.id), details, name);
}

/**
 * The account a user in no account opens without asking for one (verifying a
 * signup that named a company, their first checkout or onboarding). Such
 * openings of one user at once converge on their first account: one that
 * finds it already opened by its twin (an active owner who created it) is
 * answered that account, unchanged; anything else opens as openAccountFor.
 */
export async function openFirstAccountFor(
  deps: OpenAccountDeps & { accounts: Pick<AccountStore, 'getAccount'> },
  user: Pick<IdentityUser, 'id' | 'email'>,
  details: AccountDetails = {},
  name?: string,
): Promise<Account> {
  const first = firstAccountIdOf(user.id);
  const there = await deps.memberships.get(first, user.id);
  if (there?.status === 'active' && there.role === 'owner' && there.joined_via === 'created') {
    const opened = await deps.accounts.getAccount(first);
    if (opened) return opened;
  }
  await withinOpeningLimit(deps, user);
  return openBeside(deps, user, there, details, name);
}

async function withinOpeningLimit(deps: OpenAccountDeps, user: Pick<IdentityUser, 'id'>): Promise<void> {
  if (!deps.openingLimit) return;
  await enforceRateLimits(deps.openingLimit.limiter, [{ rule: { name: 'accounts-user', ...deps.openingLimit.limit }, subject: user.id }]);
}

/** Opens the account, given the user's membership of their first account (`there`): its id while they have none, else a fresh one. */
async function openBeside(
  deps: OpenAccountDeps,
  user: Pick<IdentityUser, 'id' | 'email'>,
  there: Membership | undefined,
  details: AccountDetails,
  name: string | undefined,
): Promise<Account> {
  const email = normaliseEmail(user.email);
  const id = there === undefined ? firstAccountIdOf(user.id) : (deps.newId ?? randomUUID)();
  const account = await deps.accounts.saveAccountDetails(id, { contact_email: email, ...details, created_by: user.id });
  await deps.memberships.join({ accountId: id, userId: user.id, email, role: 'owner', via: 'created' });
  await deps.accounts.claimMember({ email, account_id: id, role: 'owner', user_id: user.id, ...(name ? { name } : {}) });
  return account;
}
