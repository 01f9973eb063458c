// The enhanced onboarding's workflow, beside onboarding-v2's (lib/onboarding/wiring.ts).
import { config, ConfigError } from '../config.ts';
import { crawlRecords } from '../crawler/stores.ts';
import { stores } from '../onboarding/stores.ts';
import { sfnWorkflow } from '../onboarding/workflow.ts';
import { sfn } from '../workflows/step-functions.ts';

const stateMachineArn = config.workflows.enhancedOnboardingArn;
if (!stateMachineArn) throw new ConfigError('Invalid configuration: ENHANCED_ONBOARDING_STATE_MACHINE_ARN is required');

export const enhancedOnboardingDeps = {
  ...stores,
  workflow: sfnWorkflow(sfn, stateMachineArn),
  wait: { ms: config.workflows.waitMs },
  crawl: crawlRecords,
};
