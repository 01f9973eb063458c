// The state machines the functions start, and the queues the webhooks put
// their work on, each built once per Lambda instance. A machine's ARN is
// required by the functions that start it.
//
// The Step Functions client and what sends through it are imported statically
// (tree shaking leaves them out of bundles that never start an execution): a
// module reached through import() is bundled whole, with everything it imports,
// and for the AWS SDK that is a client's index with every command. Every
// function that reaches Step Functions does so on its main path anyway.
import type { SFNClient } from '@aws-sdk/client-sfn';
import {
  bookingStateMachineArn,
  crawlerRefreshStateMachineArn,
  enhancedOnboardingStateMachineArn,
  offboardingStateMachineArn,
  onboardingBatchStateMachineArn,
  onboardingStateMachineArn,
  paymentsStateMachineArn,
} from '../config.ts';
import type { BatchQueue } from '../onboarding/batches.ts';
import { sfnWorkflow } from '../workflows/sfn-workflow.ts';
import type { Workflow } from '../workflows/workflow.ts';
import type { PaymentQueue } from '../payments/payment-queue.ts';
import type { BookingQueue } from '../webhooks/booking-queue.ts';
import type { Queue } from '../workflows/queue.ts';
import { sfnQueue } from '../workflows/sfn-queue.ts';
import { createStepFunctionsClient } from '../workflows/step-functions.ts';
import { kept, onFirstCall } from './lazy.ts';

/** The Step Functions client, created on the first call that needs it. */
export const stepFunctions = (): SFNClient => kept('sfn', createStepFunctionsClient);

const workflowOn = (arn: string): Workflow =>
  onFirstCall(async () => sfnWorkflow(stepFunctions(), arn));

// Each getter declares what its function may do to its machine and the machine's
// executions, for the function's IAM role (infra/roles-per-function.mjs).
export const onboardingWorkflow = (): Workflow =>
  kept('onboardingWorkflow', () => {
    'iam:states:stateMachine/onboarding:StartExecution';
    'iam:states:execution/onboarding:DescribeExecution,RedriveExecution';
    return workflowOn(onboardingStateMachineArn());
  });
export const enhancedOnboardingWorkflow = (): Workflow =>
  kept('enhancedOnboardingWorkflow', () => {
    'iam:states:stateMachine/enhanced-onboarding:StartExecution';
    'iam:states:execution/enhanced-onboarding:DescribeExecution,RedriveExecution';
    return workflowOn(enhancedOnboardingStateMachineArn());
  });
export const offboardingWorkflow = (): Workflow =>
  kept('offboardingWorkflow', () => {
    'iam:states:stateMachine/offboarding:StartExecution';
    'iam:states:execution/offboarding:DescribeExecution,RedriveExecution';
    return workflowOn(offboardingStateMachineArn());
  });
export const crawlerRefreshWorkflow = (): Workflow =>
  kept('crawlerRefreshWorkflow', () => {
    'iam:states:stateMachine/crawler-refresh:StartExecution';
    'iam:states:execution/crawler-refresh:DescribeExecution,RedriveExecution';
    return workflowOn(crawlerRefreshStateMachineArn());
  });

/** The status of a run's execution, on whichever machine of the registry's workflows it runs (reading a run). */
export const runStatus = (): Pick<Workflow, 'status'> =>
  kept('runStatus', () => {
    'iam:states:execution/onboarding:DescribeExecution';
    'iam:states:execution/enhanced-onboarding:DescribeExecution';
    'iam:states:execution/offboarding:DescribeExecution';
    return onFirstCall(async () => ({ status: sfnWorkflow(stepFunctions(), onboardingStateMachineArn()).status }));
  });

const queueOn = <Q extends object>(arn: string): Q => onFirstCall<Q>(async () => sfnQueue(stepFunctions(), arn) as Q);

export const bookingQueue = (): BookingQueue =>
  kept('bookingQueue', () => {
    'iam:states:stateMachine/booking:StartExecution';
    return queueOn<BookingQueue>(bookingStateMachineArn());
  });
export const paymentQueue = (): PaymentQueue =>
  kept('paymentQueue', () => {
    'iam:states:stateMachine/payments:StartExecution';
    return queueOn<PaymentQueue>(paymentsStateMachineArn());
  });

/** A batch's workflow, named after the batch: started once however often it is asked. */
export const onboardingBatchQueue = (): BatchQueue =>
  kept('onboardingBatchQueue', () => {
    'iam:states:stateMachine/onboarding-batch:StartExecution';
    const queue = queueOn<Queue<{ batchId: string }>>(onboardingBatchStateMachineArn());
    return { start: async (batchId) => void (await queue.enqueue(batchId, { batchId })) };
  });

