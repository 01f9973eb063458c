import type { AccountStore } from '../../accounts/accounts.ts';
import { activeOnly, type MembershipStore } from '../../accounts/memberships.ts';
import type { Mailer } from '../../integrations/mailer.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { closingEmail } from '../emails.ts';

export interface ClosingEmailDeps {
  mailer: Mailer | null;
  accounts: Pick<AccountStore, 'getAccount'>;
  memberships: Pick<MembershipStore, 'ofAccount'>;
  portalUrl: string;
  /** Where owners ask for their data (the team's address), when the deployment has one; else they reply. */
  replyTo?: string;
}

/** The closing e-mail to each owner of the account (its contact, when no owner has signed up), once per run and address. */
export async function sendClosingEmails(deps: ClosingEmailDeps, input: StepInput): Promise<StepResult> {
  const { mailer } = deps;
  if (!mailer) return skipped('Resend is not configured in this deployment');
  const account = await deps.accounts.getAccount(input.accountId);
  if (!account) throw new Error(`Account ${input.accountId} does not exist`);
  const owners = activeOnly(await deps.memberships.ofAccount(account.id)).filter((m) => m.role === 'owner').map((m) => m.email);
  const to = owners.length ? owners : account.contact_email ? [account.contact_email] : [];
  if (!to.length) return skipped('The account has no owner or contact address to write to');
  const content = closingEmail(account, { reason: account.offboarding?.reason ?? 'closed', replyTo: deps.replyTo, portalLink: deps.portalUrl });
  for (const [i, address] of [...new Set(to)].sort().entries()) {
    await mailer.send({ ...content, to: address, kind: 'account-closed', idempotencyKey: `offboarding/${input.runId}/${i}`, replyTo: deps.replyTo });
  }
  return { outcome: 'success', details: { sent: ['account-closed'], recipients: to.length } };
}
