import type { Account, AccountStore } from '../../accounts/accounts.ts';

export async function requireAccount(accounts: Pick<AccountStore, 'getAccount'>, accountId: string): Promise<Account> {
  const account = await accounts.getAccount(accountId);
  // A run only starts after its account is written; its absence is a broken invariant, not bad input.
  if (!account) throw new Error(`Account ${accountId} does not exist`);
  return account;
}
