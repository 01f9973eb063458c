// The enhanced onboarding's workflow, beside onboarding-v2's (lib/onboarding/wiring.ts).
import { enhancedOnboardingWorkflow } from '../adapters.ts';
import { onboardingWaitMs } from '../config.ts';
import { crawlRecords } from '../crawler/stores.ts';
import { stores } from '../onboarding/stores.ts';

export const enhancedOnboardingDeps = {
  ...stores,
  workflow: enhancedOnboardingWorkflow(),
  wait: { ms: onboardingWaitMs() },
  crawl: crawlRecords,
};
