import type { Account, AccountStore } from '../../accounts/accounts.ts';
import { accountClosed, isAccountOpen } from '../../accounts/lifecycle.ts';

/**
 * The account a provisioning step works for. One closing or closed (a run
 * redriven after the client left) is refused with account_closed, which the
 * step reports as skipped: nothing is provisioned for a client who left.
 */
export async function requireAccount(accounts: Pick<AccountStore, 'getAccount'>, accountId: string): Promise<Account> {
  const account = await accounts.getAccount(accountId);
  // A run only starts after its account is written; its absence is a broken invariant, not bad input.
  if (!account) throw new Error(`Account ${accountId} does not exist`);
  if (!isAccountOpen(account.status)) throw accountClosed(account.status);
  return account;
}
