// The onboarding state machines, built from the integration registry
// (lib/provisioning/registry.ts): one generator for every workflow, so the
// machines cannot drift apart.
//
//   AssignSlug ─► <stage> ─► [its bookkeeping] ─► <next stage> ... ─► RecordOutcome ─► AllIntegrationsDone? ─► Onboarded
//                  │ a Parallel branch per integration:                                    │ no
//                  │ <Step> (retried by its policy; Catch → <Step>Failed,                  ▼
//                  │ so no vendor stops another) ─► the parts that wait for it      RetryFailedIntegrations ─► ... ─► RecordRetryOutcome ─► Onboarded
//
// The retry phase mirrors the stages: for each integration RecordOutcome
// found failed, Re<Step> is called with hold=true and the execution's redrive
// count. On the first pass it fails with AwaitingRedrive (never retried, never
// caught), so the execution ends FAILED right there; after an operator fixes
// the cause, a redrive runs just those steps, each stage after the one it needs.
import type { LambdaSpec } from '../lib/lambda-spec.ts';
import { integrations, workflows, type IntegrationSpec, type Stage, type Workflow, type WorkflowName } from '../lib/provisioning/registry.ts';
import { bookkeepingRetry, catchAll, failedOutcome, integrationTask, lambdaTask, STEP_ANSWER, stateOf, type Machine, type State } from './asl.ts';

/** What every integration step is told: the run it works for. */
const RUN_INPUT = { 'accountId.$': '$.accountId', 'email.$': '$.email', 'runId.$': '$.runId', 'portalSlug.$': '$.slug.portalSlug' };
/** Steps that only touch our own tables finish within their Lambda's 60 s. */
const BOOKKEEPING_TIMEOUT = 60;

/** The workflows' own steps besides the registry's integrations (infra/functions.ts makes their functions). */
export const onboardingSteps: readonly LambdaSpec[] = [
  { handler: 'functions/onboarding/steps/assign-slug.ts', timeout: BOOKKEEPING_TIMEOUT },
  { handler: 'functions/onboarding/steps/record-outcome.ts', timeout: BOOKKEEPING_TIMEOUT },
];
const REDRIVE_COUNT = '$$.Execution.RedriveCount';

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);
const resultsOf = (stage: Stage<string>) => `$.${lowerFirst(stage.name)}`;
const retriedResultsOf = (stage: Stage<string>) => `$.retried${stage.name}`;
/** The retry phase starts at RetryFailedIntegrations, the state a held run stops at first. */
const retryStateOf = (stage: Stage<string>, index: number) => (index === 0 ? 'RetryFailedIntegrations' : `RetryFailed${stage.name}`);

type Registry = Readonly<Record<string, IntegrationSpec>>;

/** One workflow, with the registry it draws on. */
interface Build {
  registry: Registry;
  workflow: Workflow<string>;
}

interface Part {
  owner: string;
  part: string;
  /** The state that runs it: its step's state and the part's name, e.g. SendOnboardingEmailsAfterStorage. */
  state: string;
}

/** The parts of other integrations of the workflow that wait for `key`. */
function partsAfter(key: string, { registry, workflow }: Build): Part[] {
  return workflow.integrations.flatMap((owner) =>
    (registry[owner]!.parts ?? [])
      .filter((p) => p.after === key)
      .map((p) => ({ owner, part: p.part, state: `${stateOf(registry[owner]!.step)}${stateOf(p.part)}` })),
  );
}

function stepTask(spec: IntegrationSpec, extra: Record<string, unknown>, rest: State): State {
  return integrationTask(spec, { ...RUN_INPUT, ...spec.input, ...extra }, rest);
}

/**
 * After an integration's own step (its answer kept at $.answer): the parts
 * that wait for it, one after another; then the branch answers for the
 * integration itself. In the first pass a part's failure is caught and rides
 * along under `then`, as that part's integration's failure.
 */
function chainParts(parts: Part[], build: Build, pass: 'first' | 'retry'): { next: State; states: Record<string, State> } {
  const name = (p: Part) => (pass === 'retry' ? `Re${p.state}` : p.state);
  if (!parts.length) return { next: { End: true }, states: {} };
  const states: Record<string, State> = {};
  parts.forEach((p, i) => {
    const following = parts[i + 1];
    states[name(p)] = stepTask(build.registry[p.owner]!, { part: p.part }, {
      ResultPath: null,
      ...(pass === 'first' ? { Catch: catchAll(`${name(p)}Failed`) } : {}),
      ...(following ? { Next: name(following) } : { OutputPath: '$.answer', End: true }),
    });
    if (pass === 'first') {
      states[`${name(p)}Failed`] = {
        Type: 'Pass',
        Parameters: { 'integration.$': '$.answer.integration', 'outcome.$': '$.answer.outcome', then: { integration: p.owner, outcome: 'failed', 'error.$': '$.error' } },
        End: true,
      };
    }
  });
  return { next: { ResultPath: '$.answer', Next: name(parts[0]!) }, states };
}

/** The first pass of one integration: its step and the parts that wait for it; a lasting failure becomes a `failed` outcome. */
function firstPassBranch(key: string, build: Build) {
  const spec = build.registry[key]!;
  const task = stateOf(spec.step);
  const after = chainParts(partsAfter(key, build), build, 'first');
  return {
    StartAt: task,
    States: {
      [task]: stepTask(spec, {}, { ResultSelector: STEP_ANSWER, Catch: catchAll(`${task}Failed`), ...after.next }),
      [`${task}Failed`]: failedOutcome(key),
      ...after.states,
    },
  };
}

/** The retry pass of one integration: held for a redrive if it failed, else unchanged. No Catch: what fails now stops the run for an operator. */
function retryBranch(key: string, build: Build) {
  const spec = build.registry[key]!;
  const task = stateOf(spec.step);
  const after = chainParts(partsAfter(key, build), build, 'retry');
  return {
    StartAt: `Retry${task}?`,
    States: {
      [`Retry${task}?`]: {
        Type: 'Choice',
        Choices: [{ Variable: `$.outcome.failed.${key}`, BooleanEquals: true, Next: `Re${task}` }],
        Default: `${task}Unchanged`,
      },
      [`Re${task}`]: stepTask(spec, { hold: true, 'redriveCount.$': REDRIVE_COUNT }, { ResultSelector: STEP_ANSWER, ...after.next }),
      [`${task}Unchanged`]: { Type: 'Pass', Parameters: { integration: key, outcome: 'unchanged' }, End: true },
      ...after.states,
    },
  };
}

/** The bookkeeping step after a stage, given the stage's outcomes; caught, so it never stops the run. */
function stageBookkeeping(then: NonNullable<Stage<string>['then']>, results: string, next: string): State {
  return lambdaTask(then.step, {
    parameters: { 'accountId.$': '$.accountId', ...then.input, 'branches.$': results },
    timeoutSeconds: BOOKKEEPING_TIMEOUT,
    retry: bookkeepingRetry,
    ResultPath: null,
    Catch: catchAll(next, `$.${lowerFirst(stateOf(then.step))}Error`),
    Next: next,
  });
}

function recordOutcome(workflow: Workflow<string>, results: string[], next: string): State {
  return lambdaTask('record-outcome', {
    parameters: {
      ...RUN_INPUT,
      'attempt.$': REDRIVE_COUNT,
      integrations: [...workflow.integrations],
      'branches.$': `States.Array(${results.join(', ')})`,
    },
    timeoutSeconds: BOOKKEEPING_TIMEOUT,
    retry: bookkeepingRetry,
    ResultPath: '$.outcome',
    Next: next,
  });
}

/** The state machine of one onboarding workflow; `registry` is the integrations it draws on. */
export function onboardingMachine(name: string, workflow: Workflow<string>, registry: Registry = integrations): Machine {
  const build: Build = { registry, workflow };
  const { stages } = workflow;
  const states: Record<string, State> = {
    AssignSlug: lambdaTask('assign-slug', {
      parameters: { 'accountId.$': '$.accountId' },
      timeoutSeconds: BOOKKEEPING_TIMEOUT,
      retry: bookkeepingRetry,
      ResultPath: '$.slug',
      Next: stages[0]!.name,
    }),
  };

  stages.forEach((stage, i) => {
    const next = stages[i + 1]?.name ?? 'RecordOutcome';
    const hook = stage.then && stateOf(stage.then.step);
    states[stage.name] = { Type: 'Parallel', ResultPath: resultsOf(stage), Branches: stage.run.map((key) => firstPassBranch(key, build)), Next: hook ?? next };
    if (stage.then) states[hook!] = stageBookkeeping(stage.then, resultsOf(stage), next);
  });
  states.RecordOutcome = recordOutcome(workflow, stages.map(resultsOf), 'AllIntegrationsDone?');
  states['AllIntegrationsDone?'] = {
    Type: 'Choice',
    Choices: [{ Variable: '$.outcome.success', BooleanEquals: true, Next: 'Onboarded' }],
    Default: retryStateOf(stages[0]!, 0),
  };

  stages.forEach((stage, i) => {
    const next = stages[i + 1] ? retryStateOf(stages[i + 1]!, i + 1) : 'RecordRetryOutcome';
    const hook = stage.then && `Re${stateOf(stage.then.step)}`;
    states[retryStateOf(stage, i)] = {
      Type: 'Parallel',
      ResultPath: retriedResultsOf(stage),
      Branches: stage.run.map((key) => retryBranch(key, build)),
      Next: hook ?? next,
    };
    if (stage.then) states[hook!] = stageBookkeeping(stage.then, retriedResultsOf(stage), next);
  });
  states.RecordRetryOutcome = recordOutcome(workflow, stages.map(retriedResultsOf), 'Onboarded');
  states.Onboarded = { Type: 'Succeed' };

  return {
    Comment:
      `Onboards one client account: the ${name} workflow of lib/provisioning/registry.ts. The slug first; then each stage runs its integrations side by side ` +
      `(${stages.map((s) => `${s.name}: ${s.run.join(', ')}`).join('; then ')}), each retried by its policy and caught, so no integration stops another. ` +
      'RecordOutcome writes the answer, the statuses and the follow-ups. If anything failed, the retry phase (from RetryFailedIntegrations) holds each ' +
      'failed integration in a task that fails with AwaitingRedrive on the first pass: the execution ends FAILED there, and a redrive runs just those again.',
    StartAt: 'AssignSlug',
    States: states,
  };
}

export const onboardingMachines = Object.fromEntries(
  Object.entries(workflows).map(([name, workflow]) => [name, onboardingMachine(name, workflow)]),
) as Record<WorkflowName, Machine>;
