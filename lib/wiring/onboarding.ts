// What the onboarding functions share: the workflow they start and how they
// find the account a submission is for. Each is built once per Lambda instance.
import type { EnhancedOnboardingDeps } from '../enhanced-onboarding/enhanced-onboarding.ts';
import { enhancedOnboardingStateMachineArn, memberRecordsCopying, offboardingStateMachineArn, onboardingLimitSettings, onboardingStateMachineArn, onboardingWaitMs } from '../config.ts';
import { logger } from '../log.ts';
import type { OnboardingIntake } from '../onboarding/intake.ts';
import { withOnboardingAccount, type OnboardingAccountDeps } from '../onboarding/onboarding-account.ts';
import { OFFBOARDING_WORKFLOW } from '../offboarding/offboard.ts';
import { ENHANCED_WORKFLOW } from '../onboarding/outcomes.ts';
import { beginOnboarding } from '../onboarding/start-onboarding.ts';
import type { SubmissionLimitDeps } from '../onboarding/submission-limits.ts';
import { teamDeps } from './accounts.ts';
import { kept } from './lazy.ts';
import { accounts, crawlRecords, memberships, onboardingStores, rateLimiter, runs } from './stores.ts';
import { enhancedOnboardingWorkflow, onboardingWorkflow, runStatus } from './workflows.ts';

/** How a submission finds its account (a function that reads runs only never reads the mail settings the service's invitations need). */
export const accountDeps = (): OnboardingAccountDeps =>
  kept('onboardingAccountDeps', () => ({
    accounts: accounts(),
    memberships: memberships(),
    team: teamDeps(),
    log: logger,
    copyingMemberRecords: memberRecordsCopying(),
  }));

/** The limits of onboarding submissions (read only by the functions that take submissions). */
export const submissionLimits = (): SubmissionLimitDeps => kept('submissionLimits', () => ({ limiter: rateLimiter(), limits: onboardingLimitSettings() }));

export const onboardingDeps = () =>
  kept('onboardingDeps', () => ({
    ...onboardingStores(),
    workflow: onboardingWorkflow(),
    wait: { ms: onboardingWaitMs() },
    executionArnOf,
  }));

/** What reading a run takes: its record, and the status of its execution on the machine it runs on. */
export const runViewDeps = () => kept('runViewDeps', () => ({ runs: runs(), workflow: runStatus(), executionArnOf }));

/** The enhanced onboarding's, beside onboarding-v2's. */
export const enhancedOnboardingDeps = (): EnhancedOnboardingDeps =>
  kept('enhancedOnboardingDeps', () => ({
    ...onboardingStores(),
    workflow: enhancedOnboardingWorkflow(),
    wait: { ms: onboardingWaitMs() },
    crawl: crawlRecords(),
  }));

/** The state machine a run's workflow runs on: onboarding-v2's unless the run says otherwise. */
const machineOf = (workflow: string | undefined): string =>
  workflow === ENHANCED_WORKFLOW ? enhancedOnboardingStateMachineArn() : workflow === OFFBOARDING_WORKFLOW ? offboardingStateMachineArn() : onboardingStateMachineArn();

/** A run's execution, on the machine of the workflow its record names. */
export const executionArnOfRun = (runId: string, workflow?: string) => executionArn(machineOf(workflow), runId);
const executionArnOf = executionArnOfRun;

export const executionArn = (machineArn: string, runId: string) => `${machineArn.replace(':stateMachine:', ':execution:')}:${runId}`;

/** The internal service's onboarding of one client (no account named, its run not waited for): what each row of a batch starts. */
export const startRowAsService = (intake: OnboardingIntake) =>
  withOnboardingAccount(accountDeps(), { caller: { kind: 'service' } }, intake, async (accountId) => {
    const run = await beginOnboarding(onboardingDeps(), accountId, intake);
    return { runId: run.runId, accountId };
  });

