import { provisionTaskTool } from '../../../lib/onboarding/steps/provision-task-tool.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { stepPace, taskTool } from '../../../lib/wiring/adapters.ts';
import { accountReader, ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { taskTool: taskTool(), ledger: ledger(), accounts: accountReader() };

export const handler = integrationStep('clickup', runs(), (input) => provisionTaskTool(deps, input), stepPace('clickup'));
