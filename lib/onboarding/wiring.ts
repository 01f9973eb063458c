// What the onboarding HTTP functions share: the workflow they start and how
// they find the account a submission is for. Created once per Lambda instance;
// the adapters come from ../adapters.ts.
import { memberships, teamDeps } from '../accounts/wiring.ts';
import { onboardingWorkflow } from '../adapters.ts';
import { enhancedOnboardingStateMachineArn, memberRecordsCopying, onboardingLimitSettings, onboardingStateMachineArn, onboardingWaitMs } from '../config.ts';
import { logger } from '../log.ts';
import { dynamodbRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbBatches } from './dynamodb-batches.ts';
import type { OnboardingIntake } from './intake.ts';
import { withOnboardingAccount, type OnboardingAccountDeps } from './onboarding-account.ts';
import { ENHANCED_WORKFLOW } from './outcomes.ts';
import { beginOnboarding } from './start-onboarding.ts';
import { stores } from './stores.ts';
import type { SubmissionLimitDeps } from './submission-limits.ts';

/** How a submission finds its account (a function that reads runs only never reads the mail settings the service's invitations need). */
const makeAccountDeps = (): OnboardingAccountDeps => ({
  accounts: stores.accounts,
  memberships,
  team: teamDeps,
  log: logger,
  copyingMemberRecords: memberRecordsCopying(),
});
export const accountDeps = /* @__PURE__ */ makeAccountDeps();

/** The limits of onboarding submissions (read only by the functions that take submissions). */
const makeSubmissionLimits = (): SubmissionLimitDeps => ({ limiter: dynamodbRateLimiter({ db, tables }), limits: onboardingLimitSettings() });
export const submissionLimits = /* @__PURE__ */ makeSubmissionLimits();

export const onboardingDeps = {
  ...stores,
  workflow: onboardingWorkflow(),
  wait: { ms: onboardingWaitMs() },
  executionArnOf: (runId: string, workflow?: string) => executionArn(machineOf(workflow), runId),
};

/** The state machine a run's workflow runs on: onboarding-v2's unless the run says otherwise. */
const machineOf = (workflow: string | undefined): string =>
  workflow === ENHANCED_WORKFLOW ? enhancedOnboardingStateMachineArn() : onboardingStateMachineArn();

export const executionArn = (machineArn: string, runId: string) => `${machineArn.replace(':stateMachine:', ':execution:')}:${runId}`;

/** Where batches are kept. */
export const batchStore = /* @__PURE__ */ dynamodbBatches({ db, tables });

/** The internal service's onboarding of one client (no account named, its run not waited for): what each row of a batch starts. */
export const startRowAsService = (intake: OnboardingIntake) =>
  withOnboardingAccount(accountDeps, { caller: { kind: 'service' } }, intake, async (accountId) => {
    const run = await beginOnboarding(onboardingDeps, accountId, intake);
    return { runId: run.runId, accountId };
  });
