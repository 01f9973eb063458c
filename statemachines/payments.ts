// The payments state machine: applies one payment event the payment webhook
// received and queued, in a single step. The execution is named after the
// event id (lib/payments/payment-queue.ts), so each event runs once however
// often it is delivered. Not an onboarding workflow (no Catch): whatever
// still fails after its retries leaves the execution FAILED, where an
// operator sees it and redrives it.
import type { LambdaSpec } from '../lib/lambda-spec.ts';
import { lambdaTask, paymentRetry, stateOf, type Machine } from './asl.ts';

/** Its step (infra/functions.ts makes its function). */
export const paymentsSteps: readonly LambdaSpec[] = [{ handler: 'functions/webhooks/steps/apply-payment-event.ts' }];

export const paymentsMachine: Machine = {
  Comment:
    "Applies one payment event from the payment webhook to its account's billing. An event whose account's billing other events are changing, or " +
    'whose earlier attempt still holds it, is retried in seconds; a throttled or failing e-mail vendor or Lambda service for minutes. Whatever still fails leaves the ' +
    "execution FAILED, to be redriven. The execution is named after the event's id, so each event runs once.",
  StartAt: stateOf('apply-payment-event'),
  States: {
    [stateOf('apply-payment-event')]: lambdaTask('apply-payment-event', {
      parameters: { 'event.$': '$.event' },
      timeoutSeconds: 60,
      retry: [paymentRetry.busy, paymentRetry.throttled, paymentRetry.unavailable],
      End: true,
    }),
  },
};
