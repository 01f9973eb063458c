// What the onboarding HTTP functions share: who may call them, and the
// workflows they start. Each function file calls what it needs once, at cold start.
import { enhancedOnboardingWorkflow, identity, onboardingWorkflow } from '../adapters.ts';
import { enhancedOnboardingStateMachineArn, internalApiKey, onboardingStateMachineArn, onboardingWaitMs } from '../config.ts';
import { crawlRecords } from '../crawler/stores.ts';
import type { AccessDeps } from './access.ts';
import { ENHANCED_WORKFLOW } from './outcomes.ts';
import { stores } from './stores.ts';

/** The internal service key, or a user's bearer token (the identity provider is loaded only for a token). */
export const access = (): AccessDeps => ({ identity: identity(), internalApiKey: internalApiKey() });

export const onboardingDeps = () => ({
  ...stores,
  workflow: onboardingWorkflow(),
  wait: { ms: onboardingWaitMs() },
  executionArnOf: (runId: string, workflow?: string) => executionArn(machineOf(workflow), runId),
});

/** The enhanced onboarding's run, beside onboarding-v2's. */
export const enhancedOnboardingDeps = () => ({
  ...stores,
  workflow: enhancedOnboardingWorkflow(),
  wait: { ms: onboardingWaitMs() },
  crawl: crawlRecords,
});

/** The state machine a run's workflow runs on: onboarding-v2's unless the run says otherwise. */
const machineOf = (workflow: string | undefined): string =>
  workflow === ENHANCED_WORKFLOW ? enhancedOnboardingStateMachineArn() : onboardingStateMachineArn();

export const executionArn = (machineArn: string, runId: string) => `${machineArn.replace(':stateMachine:', ':execution:')}:${runId}`;
