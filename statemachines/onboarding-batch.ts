// The batch state machine: starts a batch's rows as onboarding runs, a few at
// a time in line order, until none is queued (lib/onboarding/batches.ts). It
// waits for none of them: each run paces itself at the vendors. Named after
// the batch, so a batch is started once.
import type { LambdaSpec } from '../lib/lambda-spec.ts';
import { bookkeepingRetry, lambdaTask, stateOf, type Machine } from './asl.ts';

/** Its one step: a few rows started per call, each in a few DynamoDB calls and a StartExecution. */
export const onboardingBatchSteps: readonly LambdaSpec[] = [{ handler: 'functions/onboarding/steps/start-batch-rows.ts', timeout: 120 }];

const START = stateOf('start-batch-rows');

export const onboardingBatchMachine: Machine = {
  Comment:
    'Starts the rows of one onboarding batch as ordinary onboarding runs, in line order, a few per step, until none is queued. ' +
    'Each run then provisions at the pace the vendors allow; the batch view (GET /api/onboarding/batches/{batchId}) says where they stand.',
  StartAt: START,
  States: {
    [START]: lambdaTask('start-batch-rows', {
      parameters: { 'batchId.$': '$.batchId' },
      timeoutSeconds: 120,
      retry: bookkeepingRetry,
      ResultPath: '$.started',
      Next: 'MoreRows?',
    }),
    'MoreRows?': { Type: 'Choice', Choices: [{ Variable: '$.started.remaining', BooleanEquals: true, Next: START }], Default: 'AllStarted' },
    AllStarted: { Type: 'Succeed' },
  },
};
