import type { AccountStore } from '../../accounts/accounts.ts';
import type { Crm } from '../../integrations/crm.ts';
import type { Ledger } from '../ledger.ts';
import { skipped, type StepResult } from '../outcomes.ts';
import { requireAccount } from './account.ts';
import type { StepInput } from './integration-step.ts';

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
    companyName: account.company_name ?? input.portalSlug,
    website: account.company_url,
    description: `Client portal: ${deps.portalUrl}/${input.portalSlug}`,
    contact: { email: input.email, phone: account.phone },
  };
  const known = await ledger.get<{ id: string }>(account.id, 'close#lead');
  const found =
    known?.id ??
    (await crm.findLeadByEmail(input.email)) ??
    (account.company_domain ? await crm.findLeadByDomain(account.company_domain) : undefined);
  let action: 'updated' | 'created';
  let leadId: string;
  if (found) {
    await crm.updateLead(found, details);
    leadId = found;
    action = 'updated';
  } else {
    leadId = await crm.createLead(details);
    action = 'created';
  }
  if (!known) await ledger.put(account.id, 'close#lead', { id: leadId });
  return { outcome: 'success', details: { leadId, action } };
}
