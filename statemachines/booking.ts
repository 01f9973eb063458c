// The booking state machine: acts on one booking event from the booking
// webhook, the booking's task and the team's chat alert each in its own
// branch, so one vendor never holds up the other. Not an onboarding workflow
// (no Catch, no held retry): whatever still fails after its retries leaves the
// execution FAILED at that state, and a redrive re-runs only what did not
// succeed. The execution is named after the delivery's event key, so each
// event runs once.
import type { LambdaSpec } from '../lib/lambda-spec.ts';
import { bookingRetry, lambdaTask, stateOf, type Machine, type Retrier } from './asl.ts';

/** Its steps (infra/functions.ts makes their functions). */
export const bookingSteps: readonly LambdaSpec[] = [
  { handler: 'functions/webhooks/steps/record-booking-task.ts', timeout: 120 },
  { handler: 'functions/webhooks/steps/post-booking-alert.ts', timeout: 120 },
];

const BOOKING_INPUT = { 'accountId.$': '$.accountId', 'eventKey.$': '$.eventKey', 'booking.$': '$.booking', 'execution.$': '$$.Execution.Name' };

const bookingBranch = (step: string, retry: Retrier[]) => ({
  StartAt: stateOf(step),
  States: {
    [stateOf(step)]: lambdaTask(step, {
      parameters: BOOKING_INPUT,
      timeoutSeconds: 150,
      retry,
      ResultSelector: { 'step.$': '$.step', 'outcome.$': '$.outcome' },
      End: true,
    }),
  },
});

export const bookingMachine: Machine = {
  Comment:
    "Acts on one booking event from the booking webhook: the booking's task in the account's onboarding list, and the team's chat alert, each in its " +
    'own branch so one vendor never holds up the other. Transient vendor errors are retried with backoff; a busy booking (another event of it writing ' +
    'its task) in seconds; an account whose onboarding has not made its list yet for about two hours. Whatever still fails leaves the execution FAILED ' +
    "at that state, and a redrive re-runs only what did not succeed. The execution is named after the delivery's event key, so each event runs once.",
  StartAt: 'ActOnBooking',
  States: {
    ActOnBooking: {
      Type: 'Parallel',
      ResultPath: '$.results',
      End: true,
      Branches: [
        bookingBranch('record-booking-task', [bookingRetry.throttled, bookingRetry.busyBooking, bookingRetry.listMissing, bookingRetry.unavailable]),
        bookingBranch('post-booking-alert', [bookingRetry.throttled, bookingRetry.unavailable]),
      ],
    },
  },
};
