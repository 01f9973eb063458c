import { config } from '../../../lib/config.ts';
import { clickupTaskTool } from '../../../lib/integrations/clickup-task-tool.ts';
import { provisionTaskTool } from '../../../lib/onboarding/steps/provision-task-tool.ts';
import { stores, vendorPolicy } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = {
  taskTool: config.taskTool && clickupTaskTool(config.taskTool, vendorPolicy),
  ledger: stores.ledger,
  accounts: stores.accounts,
};

export const handler = integrationStep('clickup', stores.runs, (input) => provisionTaskTool(deps, input));
