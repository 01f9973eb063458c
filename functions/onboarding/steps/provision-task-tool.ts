import { stepPace, taskTool } from '../../../lib/adapters.ts';
import { provisionTaskTool } from '../../../lib/onboarding/steps/provision-task-tool.ts';
import { stores } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = { taskTool: taskTool(), ledger: stores.ledger, accounts: stores.accounts };

export const handler = integrationStep('clickup', stores.runs, (input) => provisionTaskTool(deps, input), stepPace('clickup'));
