import { recordOutcome, type RecordInput } from '../../../lib/onboarding/steps/record-outcome.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

export const handler = (input: RecordInput) => recordOutcome(stores, input);
