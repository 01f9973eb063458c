import { randomUUID } from 'node:crypto';
import { normaliseEmail, type Account, type AccountStore } from './accounts.ts';

/**
 * The account of the person with this e-mail address: the account of their
 * member row, which is created (as the owner of a new account) when they have
 * none. Race-free: concurrent callers converge on whichever member row was
 * written first (a conditional put), and the account row is an upsert.
 */
export async function ensureAccountFor(
  accounts: Pick<AccountStore, 'getAccount' | 'getMember' | 'claimMember' | 'saveAccountDetails'>,
  person: { email: string; userId?: string },
  newId: () => string = randomUUID,
): Promise<Account> {
  const email = normaliseEmail(person.email);
  const member =
    (await accounts.getMember(email)) ??
    (await accounts.claimMember({ email, account_id: newId(), role: 'owner', user_id: person.userId })).member;
  return (await accounts.getAccount(member.account_id)) ?? (await accounts.saveAccountDetails(member.account_id, { contact_email: email }));
}
