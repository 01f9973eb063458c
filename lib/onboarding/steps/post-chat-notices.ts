import type { AccountStore } from '../../accounts/accounts.ts';
import type { Chat } from '../../integrations/chat.ts';
import { remembered, type Ledger } from '../ledger.ts';
import { skipped, type StepResult } from '../outcomes.ts';
import { requireAccount } from './account.ts';
import type { StepInput } from './integration-step.ts';

export interface ChatDeps {
  chat: Chat | null;
  ledger: Ledger;
  accounts: AccountStore;
  portalUrl: string;
}

/** The team's new-client notice, posted once per account. */
export async function postChatNotices(deps: ChatDeps, input: StepInput): Promise<StepResult> {
  const { chat } = deps;
  if (!chat) return skipped('Slack is not configured in this deployment');
  const account = await requireAccount(deps.accounts, input.accountId);
  const portalLink = `${deps.portalUrl}/${input.portalSlug}`;
  const company = account.company_name ?? input.portalSlug;
  const facts = [`Contact: ${input.email}`, account.company_url && `Website: ${account.company_url}`, (account.plan ?? account.requested_plan) && `Plan: ${account.plan ?? account.requested_plan}`, `Portal: ${portalLink}`]
    .filter(Boolean)
    .join('\n');
  await remembered(deps.ledger, account.id, 'slack#new-client', async () => {
    const { ts } = await chat.post({
      text: `New client onboarded: ${company}\n${facts}`,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: `New client: ${company}`.slice(0, 150) } },
        { type: 'section', text: { type: 'mrkdwn', text: facts.replace(/[<>&]/g, '') } },
      ],
    });
    return { ts: ts ?? 'incoming-webhook' };
  });
  return { outcome: 'success', details: { posted: ['new-client'] } };
}
