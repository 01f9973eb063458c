import type { Crm } from '../../integrations/crm.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import type { Ledger } from '../../provisioning/ledger.ts';

export interface FormerLeadDeps {
  crm: Crm | null;
  ledger: Ledger;
  /** The organisation's lead status for former clients (CLOSE_FORMER_CLIENT_STATUS_ID); unset: the lead is left as it is. */
  formerStatusId?: string;
}

/** Sets the client's CRM lead (the one onboarding found or made) to the agency's former-client status. */
export async function markCrmLeadFormer(deps: FormerLeadDeps, input: StepInput): Promise<StepResult> {
  if (!deps.crm) return skipped('Close is not configured in this deployment');
  const lead = await deps.ledger.get<{ id: string }>(input.accountId, 'close#lead');
  if (!lead) return skipped('Onboarding found or made no Close lead for this account');
  if (!deps.formerStatusId) return skipped('CLOSE_FORMER_CLIENT_STATUS_ID is not set: the lead keeps its status');
  await deps.crm.setLeadStatus(lead.id, deps.formerStatusId);
  return { outcome: 'success', details: { leadId: lead.id, statusId: deps.formerStatusId } };
}
