import { archiveTaskTool } from '../../../lib/offboarding/steps/archive-task-tool.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { stepPace, taskTool } from '../../../lib/wiring/adapters.ts';
import { ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { taskTool: taskTool(), ledger: ledger() };

export const handler = integrationStep('clickup', runs(), (input) => archiveTaskTool(deps, input), stepPace('clickup', 'takeBack'));
