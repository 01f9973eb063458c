import type { AccountStore } from '../../accounts/accounts.ts';
import type { InvitationStore } from '../../accounts/invitations.ts';
import { sendDueInvitations } from '../../accounts/team.ts';
import type { Mailer } from '../../integrations/mailer.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { newClientTeamEmail, storageReadyEmail, welcomeEmail } from '../emails.ts';
import type { EmailContent } from '../../integrations/email-layout.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import { requireAccount } from './account.ts';

export interface EmailDeps {
  mailer: Mailer | null;
  ledger: Ledger;
  accounts: Pick<AccountStore, 'getAccount'>;
  portalUrl: string;
  teamAddress?: string;
  /** The owner's invitation the onboarding endpoint wrote unsent is this step's to send. */
  invitations: Pick<InvitationStore, 'ofAccount' | 'markSent'>;
}

/**
 * Sends every onboarding e-mail that is due and not sent yet: the welcome,
 * the team's new-client notice, and, once the client's storage folder has a
 * shared link, the workspace-ready e-mail. Called both on its own and after
 * the storage tree, so the last e-mail goes out as soon as it can. The call
 * on its own also sends the account's invitations left for the run (a new
 * owner's): a failure to send one fails the step like any of its e-mails.
 */
export async function sendOnboardingEmails(deps: EmailDeps, input: StepInput): Promise<StepResult> {
  const { mailer, ledger } = deps;
  if (!mailer) return skipped('Resend is not configured in this deployment');
  const account = await requireAccount(deps.accounts, input.accountId);
  const portalLink = `${deps.portalUrl}/${input.portalSlug}`;

  const due: { kind: string; to: string; content: EmailContent }[] = [{ kind: 'welcome', to: input.email, content: welcomeEmail(account, portalLink) }];
  if (deps.teamAddress) due.push({ kind: 'team-new-client', to: deps.teamAddress, content: newClientTeamEmail(account, portalLink) });
  const pending: string[] = [];
  // The account's own link, as provision-storage-tree stored it.
  if (account.storage_link) due.push({ kind: 'storage-ready', to: input.email, content: storageReadyEmail(account, account.storage_link) });
  else pending.push('storage-ready');

  const [invited] = await Promise.all([
    input.part ? [] : sendDueInvitations({ ...deps, mailer }, account.id),
    ...due.map((email) =>
      remembered(ledger, { accountId: account.id, resource: `resend#${email.kind}`, maker: input.runId }, async () => {
        const { id } = await mailer.send({ ...email.content, to: email.to, kind: email.kind, idempotencyKey: `onboarding-${account.id}-${email.kind}` });
        return { id };
      }),
    ),
  ]);
  return { outcome: 'success', details: { sent: [...due.map((e) => e.kind), ...(invited.length ? ['invitation'] : [])], pending } };
}
