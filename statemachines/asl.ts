// Building blocks of the state machines: Lambda tasks, the named retry
// policies, catches. Every machine is JSONPath ASL whose Lambda Resources are
// `${<Step>Arn}` placeholders: CloudFormation fills them with ARNs
// (DefinitionSubstitutions), the local stack with function names.
import type { IntegrationSpec, RetryPolicy } from '../lib/provisioning/registry.ts';

export type State = Record<string, unknown>;

export interface Machine {
  Comment: string;
  StartAt: string;
  TimeoutSeconds?: number;
  States: Record<string, State>;
}

export interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds: number;
  BackoffRate: number;
  MaxAttempts: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: 'FULL';
}

/** provision-task-tool → ProvisionTaskTool: the state that runs a step, and its placeholder's stem. */
export const stateOf = (step: string) => step.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

export const placeholderOf = (step: string) => `${stateOf(step)}Arn`;

/** ProvisionTaskToolArn → provision-task-tool: the step function a placeholder stands for. */
export const stepOfPlaceholder = (placeholder: string) =>
  placeholder.replace(/Arn$/, '').replace(/[A-Z]/g, (c, at: number) => `${at ? '-' : ''}${c.toLowerCase()}`);

/**
 * Failures of the Lambda service or of a call that timed out: nothing the step decided, so worth another try.
 * A function past its own timeout (or out of memory) is Sandbox.Timedout from Lambda's newer runtimes, and
 * Lambda.Unknown in Step Functions' own account of such failures ("Handling errors", Lambda service exceptions).
 */
const LAMBDA_TRANSIENT = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  'Lambda.Unknown',
  'Sandbox.Timedout',
  'States.Timeout',
];

const retrier = (errors: string[], interval: number, backoff: number, attempts: number, maxDelay?: number, jitter = true): Retrier => ({
  ErrorEquals: errors,
  IntervalSeconds: interval,
  BackoffRate: backoff,
  MaxAttempts: attempts,
  ...(maxDelay === undefined ? {} : { MaxDelaySeconds: maxDelay }),
  ...(jitter ? { JitterStrategy: 'FULL' as const } : {}),
});

/**
 * A throttled vendor (VendorThrottled: it asked us to wait longer than a step
 * waits, as ClickUp's X-RateLimit-Reset and Close's rate_reset can, a minute
 * away) gets a schedule of its own, about two minutes with full jitter, before
 * the generic retry of a vendor that failed (VendorUnavailable). Errors not
 * named here (a vendor's refusal, AwaitingRedrive) are never retried.
 */
const throttled = retrier(['VendorThrottled'], 15, 1.5, 6, 60);

export const retryPolicies: Record<RetryPolicy, Retrier[]> = {
  vendor: [throttled, retrier(['VendorUnavailable', ...LAMBDA_TRANSIENT], 2, 2, 3, 20)],
  // A site that does not answer may be back in seconds; its steps are long, so fewer tries.
  site: [throttled, retrier(['VendorUnavailable', 'SiteUnavailable', ...LAMBDA_TRANSIENT], 5, 2, 2, 30)],
};

/** Steps that only touch our own tables: anything is worth a few quick tries. */
export const bookkeepingRetry: Retrier[] = [retrier(['States.ALL'], 1, 2, 4)];

/**
 * The steps of work a webhook queued (booking, payments) answer nobody
 * waiting, so they retry for longer: throttling and vendor failures for
 * minutes.
 */
const queuedWorkRetry = {
  throttled: retrier(['VendorThrottled'], 20, 2, 6, 300),
  unavailable: retrier(['VendorUnavailable', ...LAMBDA_TRANSIENT], 5, 2, 6, 300),
};

/**
 * The booking steps also retry a busy booking (another event of it writing
 * its task) in seconds, and an account whose onboarding has not made its
 * list yet for about two hours.
 */
export const bookingRetry = {
  ...queuedWorkRetry,
  busyBooking: retrier(['BookingTaskBusy'], 2, 1.5, 10, 30),
  listMissing: retrier(['OnboardingListMissing'], 60, 2, 8, 1800, false),
};

/**
 * The payments step also retries, in seconds for about ten minutes, an event
 * whose account's billing other events are changing (BillingBusy) or whose
 * earlier attempt still holds its claim (DeliveryInProgress, until that
 * attempt's lease runs out).
 */
export const paymentRetry = {
  ...queuedWorkRetry,
  busy: retrier(['BillingBusy', 'DeliveryInProgress'], 1, 2, 10, 120),
};

/** A Lambda task of one of our functions. */
export function lambdaTask(step: string, options: { parameters: Record<string, unknown>; timeoutSeconds: number; retry: Retrier[] } & State): State {
  const { parameters, timeoutSeconds, retry, ...rest } = options;
  return {
    Type: 'Task',
    Resource: `\${${placeholderOf(step)}}`,
    Parameters: parameters,
    TimeoutSeconds: timeoutSeconds,
    Retry: retry,
    ...rest,
  };
}

/** The task of a registered integration, with the registry's timeout and retry policy. */
export function integrationTask(spec: IntegrationSpec, parameters: Record<string, unknown>, rest: State): State {
  return lambdaTask(spec.step, { parameters, timeoutSeconds: spec.timeoutSeconds, retry: retryPolicies[spec.retry], ...rest });
}

/** A step's answer to the machine: which integration, and how it went. */
export const STEP_ANSWER = { 'integration.$': '$.integration', 'outcome.$': '$.outcome' };

/**
 * A step that may answer "waiting" (its vendor calls are paced, or the vendor
 * said later; lib/provisioning/integration-step.ts), as three states: the
 * task, whose answer lands at `answerPath` and which is given its previous
 * answer there; `<name>Waiting?`, which sends a waiting answer to
 * `<name>Wait`, a Wait state until the time the step named, and then to the
 * task again, and anything else on to `next`. `answerPath` must hold an
 * object when the loop is entered (the Parallel's Parameters start it empty).
 */
export function pacedTask(name: string, spec: IntegrationSpec, options: { parameters: Record<string, unknown>; answerPath: string; next: string } & State) {
  const { parameters, answerPath, next, ...rest } = options;
  return {
    [name]: integrationTask(spec, { ...parameters, 'previous.$': answerPath }, { ResultPath: answerPath, ...rest, Next: `${name}Waiting?` }),
    [`${name}Waiting?`]: {
      Type: 'Choice',
      Choices: [{ Variable: `${answerPath}.outcome`, StringEquals: 'waiting', Next: `${name}Wait` }],
      Default: next,
    },
    [`${name}Wait`]: { Type: 'Wait', TimestampPath: `${answerPath}.until`, Next: name },
  } satisfies Record<string, State>;
}

/** Where a caught step's branch ends: a `failed` outcome carrying the error. */
export const failedOutcome = (integration: string): State => ({
  Type: 'Pass',
  Parameters: { integration, outcome: 'failed', 'error.$': '$.error' },
  End: true,
});

/** Any failure, caught, with the error kept at `resultPath`, and the run goes on at `next`. */
export const catchAll = (next: string, resultPath = '$.error') => [{ ErrorEquals: ['States.ALL'], ResultPath: resultPath, Next: next }];

/** The ${...Arn} placeholders a definition uses, in order of first use. */
export function placeholdersIn(definition: Machine): string[] {
  return [...new Set([...JSON.stringify(definition).matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]!))];
}
