import { markCrmLeadFormer } from '../../../lib/offboarding/steps/mark-crm-lead-former.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { crm, stepPace } from '../../../lib/wiring/adapters.ts';
import { formerClientStatus } from '../../../lib/wiring/offboarding.ts';
import { ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { crm: crm(), ledger: ledger(), formerStatusId: formerClientStatus() };

export const handler = integrationStep('close', runs(), (input) => markCrmLeadFormer(deps, input), stepPace('close', 'takeBack'));
