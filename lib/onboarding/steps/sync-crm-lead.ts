import type { AccountStore } from '../../accounts/accounts.ts';
import type { Crm } from '../../integrations/crm.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { oneLine } from '../../text.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import { requireAccount } from './account.ts';

export interface CrmDeps {
  crm: Crm | null;
  ledger: Ledger;
  accounts: Pick<AccountStore, 'getAccount'>;
  portalUrl: string;
}

/**
 * Brings the client's lead up to date: the one recorded for the account, else
 * the one found by the contact's e-mail, else by the company's domain, but
 * only for a contact whose own address is at that domain (see
 * addressIsAtDomain); only when none of these exists is a lead created.
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
    const domain = account.company_domain;
    const found =
      (await crm.findLeadByEmail(input.email)) ?? (domain && addressIsAtDomain(input.email, domain) ? await crm.findLeadByDomain(domain) : undefined);
    if (found) return { id: found };
    action = 'created';
    return { id: await crm.createLead(details) };
  });
  if (action === 'updated') await crm.updateLead(lead.id, details);
  const leadId = lead.id;
  return { outcome: 'success', details: { leadId, action } };
}

/**
 * Whether an e-mail address is at the domain or one of its subdomains. The
 * website, and so the domain, is whatever the form says; the address is the
 * signed-in person's own (verified) or the portal backend's word. A stranger
 * typing another company's website must not take over that company's lead:
 * rename it, join it as a contact, or learn from "updated" that the agency
 * knows the company. A contact elsewhere (a personal address, say) gets a new
 * lead, which the agency can merge in Close.
 */
export function addressIsAtDomain(email: string, domain: string): boolean {
  const host = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const site = domain.toLowerCase().replace(/^www\./, '');
  return host === site || host.endsWith(`.${site}`);
}
