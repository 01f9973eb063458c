import { recordOutcome, type RecordInput } from '../../../lib/onboarding/steps/record-outcome.ts';
import { onboardingStores } from '../../../lib/wiring/stores.ts';

const deps = onboardingStores();

export const handler = (input: RecordInput) => recordOutcome(deps, input);
