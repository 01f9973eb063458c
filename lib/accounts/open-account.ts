// A person creates an account, and is its owner: the one way, besides
// accepting an invitation, to become a member of one.
import { createHash, randomUUID } from 'node:crypto';
import type { IdentityUser } from '../identity/identity.ts';
import { normaliseEmail, type Account, type AccountDetails, type AccountStore } from './accounts.ts';
import type { MembershipStore } from './memberships.ts';

export interface OpenAccountDeps {
  accounts: Pick<AccountStore, 'saveAccountDetails' | 'claimMember'>;
  memberships: Pick<MembershipStore, 'join' | 'get'>;
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
 * answers it. The first is at firstAccountIdOf(user) (a half-done opening
 * there is finished); a user who has left that one gets a fresh id, so
 * leaving an account is never undone by opening another.
 */
export async function openAccountFor(
  deps: OpenAccountDeps,
  user: Pick<IdentityUser, 'id' | 'email'>,
  details: AccountDetails = {},
  name?: string,
): Promise<Account> {
  const email = normaliseEmail(user.email);
  const first = firstAccountIdOf(user.id);
  const left = (await deps.memberships.get(first, user.id))?.status === 'removed';
  const id = left ? (deps.newId ?? randomUUID)() : first;
  const account = await deps.accounts.saveAccountDetails(id, { contact_email: email, ...details, created_by: user.id });
  await deps.memberships.join({ accountId: id, userId: user.id, email, role: 'owner', via: 'created' });
  await deps.accounts.claimMember({ email, account_id: id, role: 'owner', user_id: user.id, ...(name ? { name } : {}) });
  return account;
}
