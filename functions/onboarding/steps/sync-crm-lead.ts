import { portalUrls } from '../../../lib/config.ts';
import { syncCrmLead } from '../../../lib/onboarding/steps/sync-crm-lead.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { crm, stepPace } from '../../../lib/wiring/adapters.ts';
import { accountReader, ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { crm: crm(), portalUrl: portalUrls().portal, ledger: ledger(), accounts: accountReader() };

export const handler = integrationStep('close', runs(), (input) => syncCrmLead(deps, input), stepPace('close'));
