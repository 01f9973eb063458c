import type { AccountStore } from '../../accounts/accounts.ts';
import type { Chat } from '../../integrations/chat.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { chatField, chatMrkdwn, oneLine } from '../../text.ts';

export interface ClosingNoticeDeps {
  chat: Chat | null;
  ledger: Ledger;
  accounts: Pick<AccountStore, 'getAccount'>;
}

/** The team's notice that a client is leaving, and what the run takes back; once per run. */
export async function postClosingNotice(deps: ClosingNoticeDeps, input: StepInput): Promise<StepResult> {
  const { chat } = deps;
  if (!chat) return skipped('Slack is not configured in this deployment');
  const account = await deps.accounts.getAccount(input.accountId);
  if (!account) throw new Error(`Account ${input.accountId} does not exist`);
  const company = oneLine(account.company_name || input.portalSlug || account.id);
  const facts = [
    `Reason: ${chatField(account.offboarding?.reason ?? 'closed')}`,
    `Asked by: ${chatField(account.offboarding?.requested_by ?? 'unknown')}`,
    'Taken back: ClickUp tasks archived, Dropbox link revoked and folder archived, Close lead set to former client, owners e-mailed.',
    `Run: ${chatField(input.runId)}`,
  ].join('\n');
  await remembered(deps.ledger, { accountId: account.id, resource: `slack#closing#${input.runId}`, maker: input.runId }, async () => {
    const { ts } = await chat.post({
      text: `Client leaving: ${chatField(company)}\n${facts}`,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: chatField(`Client leaving: ${company}`, 150) } },
        { type: 'section', text: chatMrkdwn(facts) },
      ],
    });
    return { ts: ts ?? 'incoming-webhook' };
  });
  return { outcome: 'success', details: { posted: ['client-leaving'] } };
}
