import type { AccountStore } from '../../accounts/accounts.ts';
import type { Crm } from '../../integrations/crm.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { oneLine } from '../../text.ts';
import { skipped, type StepResult } from '../outcomes.ts';
import { requireAccount } from './account.ts';

export interface CrmDeps {
  crm: Crm | null;
  ledger: Ledger;
  accounts: AccountStore;
  portalUrl: string;
}

/**
 * Brings the client's lead up to date: the one recorded for the account, else
 * the one found by the contact's e-mail, else by the company's domain; only
 * when none exists is a lead created.
 */
export async function syncCrmLead(deps: CrmDeps, input: StepInput): Promise<StepResult> {
  const { crm, ledger } = deps;
  if (!crm) return skipped('Close is not configured in this deployment');
  const account = await requireAccount(deps.accounts, input.accountId);
  const details = {
    companyName: oneLine(account.company_name) || input.portalSlug,
    website: account.company_url,
    description: `Client portal: ${deps.portalUrl}/${input.portalSlug}`,
    contact: { email: input.email, phone: account.phone },
  };
  // Finding or creating the lead is one ledger entry, so two runs of the account never both create it.
  let action: 'updated' | 'created' = 'updated';
  const lead = await remembered(ledger, { accountId: account.id, resource: 'close#lead', maker: input.runId }, async () => {
    const found =
      (await crm.findLeadByEmail(input.email)) ?? (account.company_domain ? await crm.findLeadByDomain(account.company_domain) : undefined);
    if (found) return { id: found };
    action = 'created';
    return { id: await crm.createLead(details) };
  });
  if (action === 'updated') await crm.updateLead(lead.id, details);
  const leadId = lead.id;
  return { outcome: 'success', details: { leadId, action } };
}
