// What the onboarding HTTP functions share: the workflow they start and how
// they find the account a submission is for. Created once per Lambda instance.
import { memberships, teamDeps } from '../accounts/wiring.ts';
import { config, ConfigError } from '../config.ts';
import { logger } from '../log.ts';
import type { OnboardingAccountDeps } from './onboarding-account.ts';
import { sfn } from '../workflows/step-functions.ts';
import { ENHANCED_WORKFLOW } from './outcomes.ts';
import { stores } from './stores.ts';
import { sfnWorkflow } from './workflow.ts';

const stateMachineArn = config.workflows.onboardingArn;
if (!stateMachineArn) throw new ConfigError('Invalid configuration: ONBOARDING_STATE_MACHINE_ARN is required');

export const accountDeps: OnboardingAccountDeps = { accounts: stores.accounts, memberships, team: teamDeps, log: logger };

export const onboardingDeps = {
  ...stores,
  workflow: sfnWorkflow(sfn, stateMachineArn),
  wait: { ms: config.workflows.waitMs },
  executionArnOf: (runId: string, workflow?: string) => executionArn(machineOf(workflow), runId),
};

/** The state machine a run's workflow runs on: onboarding-v2's unless the run says otherwise. */
function machineOf(workflow: string | undefined): string {
  if (workflow === ENHANCED_WORKFLOW && config.workflows.enhancedOnboardingArn) return config.workflows.enhancedOnboardingArn;
  return stateMachineArn!;
}

export const executionArn = (machineArn: string, runId: string) => `${machineArn.replace(':stateMachine:', ':execution:')}:${runId}`;
