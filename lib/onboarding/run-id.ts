// The run id, apart from the form's schema: it needs node:crypto, which the
// route catalog (and so the not-found and OpenAPI functions) need not load.
import { stableJson } from '../stable-json.ts';
import { runIdOf } from '../workflows/workflow.ts';
import type { OnboardingIntake } from './intake.ts';

/**
 * The run id (the state machine's execution name): the account plus a digest
 * of the submission. The same submission maps to the same run; a changed one
 * to a new run, whose steps create only what is missing. Another workflow
 * (e.g. the enhanced onboarding) mixes its name in, so the same submission
 * to two workflows makes two runs.
 */
export function runIdFor(accountId: string, intake: OnboardingIntake, workflow?: string): string {
  return runIdOf(accountId, workflow ? `${workflow}:${stableJson(intake)}` : stableJson(intake));
}
