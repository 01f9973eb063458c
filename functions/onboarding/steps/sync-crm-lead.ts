import { crm, stepPace } from '../../../lib/adapters.ts';
import { portalUrls } from '../../../lib/config.ts';
import { syncCrmLead } from '../../../lib/onboarding/steps/sync-crm-lead.ts';
import { stores } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = { crm: crm(), portalUrl: portalUrls().portal, ledger: stores.ledger, accounts: stores.accounts };

export const handler = integrationStep('close', stores.runs, (input) => syncCrmLead(deps, input), stepPace('close'));
