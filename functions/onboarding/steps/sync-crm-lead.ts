import { config } from '../../../lib/config.ts';
import { closeCrm } from '../../../lib/integrations/close-crm.ts';
import { syncCrmLead } from '../../../lib/onboarding/steps/sync-crm-lead.ts';
import { stores, vendorPolicy } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = {
  crm: config.crm && closeCrm(config.crm, vendorPolicy),
  portalUrl: config.urls.portal,
  ledger: stores.ledger,
  accounts: stores.accounts,
};

export const handler = integrationStep('close', stores.runs, (input) => syncCrmLead(deps, input));
