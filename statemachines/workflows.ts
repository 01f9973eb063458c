// The workflows' state machines (onboarding, enhanced onboarding, offboarding),
// built from the integration registry (lib/provisioning/registry.ts): one
// generator for every workflow, so the machines cannot drift apart.
//
//   [Wait] ─► <opening> ─► <stage> ─► [its bookkeeping] ─► ... ─► RecordOutcome ─► AllIntegrationsDone? ─► Done
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
import { actionOf, integrations, workflows, type IntegrationSpec, type Stage, type Workflow, type WorkflowName } from '../lib/provisioning/registry.ts';
import { bookkeepingRetry, catchAll, failedOutcome, lambdaTask, pacedTask, stateOf, type Machine, type State } from './asl.ts';

/** What every integration step is told: the run it works for. */
const RUN_INPUT = { 'accountId.$': '$.accountId', 'email.$': '$.email', 'runId.$': '$.runId', 'portalSlug.$': '$.slug.portalSlug' };
/** Steps that only touch our own tables finish within their Lambda's 60 s. */
const BOOKKEEPING_TIMEOUT = 60;

/** The workflows' own steps besides the registry's integrations (infra/functions.ts makes their functions): openings, and the outcome's record. */
export const workflowSteps: readonly LambdaSpec[] = [
  { handler: 'functions/onboarding/steps/assign-slug.ts', timeout: BOOKKEEPING_TIMEOUT },
  { handler: 'functions/offboarding/steps/begin-offboarding.ts', timeout: BOOKKEEPING_TIMEOUT },
  { handler: 'functions/onboarding/steps/record-outcome.ts', timeout: BOOKKEEPING_TIMEOUT },
];
const REDRIVE_COUNT = '$$.Execution.RedriveCount';
/** The held retry's extra input: held on the first pass, run for real once an operator redrives. */
const HELD = { hold: true, 'redriveCount.$': REDRIVE_COUNT };

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

/** The step the workflow runs for an integration (its provisioning, or its take-back). */
const specOf = (key: string, { registry, workflow }: Build): IntegrationSpec => actionOf(registry[key]!, workflow.action);

interface Part {
  owner: string;
  part: string;
  /** The state that runs it: its step's state and the part's name, e.g. SendOnboardingEmailsAfterStorage. */
  state: string;
}

/** The parts of other integrations of the workflow that wait for `key`. */
function partsAfter(key: string, build: Build): Part[] {
  return build.workflow.integrations.flatMap((owner) =>
    (specOf(owner, build).parts ?? [])
      .filter((p) => p.after === key)
      .map((p) => ({ owner, part: p.part, state: `${stateOf(specOf(owner, build).step)}${stateOf(p.part)}` })),
  );
}

/** Where a branch keeps its integration's answer, and the answer of the part it is running. */
const ANSWER = '$.answer';
const PART_ANSWER = '$.partAnswer';

/** What each stage's branches start from: the run, and room for their answers (the wait loops read them). */
const branchInput = (retry: boolean) => ({
  'accountId.$': '$.accountId',
  'email.$': '$.email',
  'runId.$': '$.runId',
  'slug.$': '$.slug',
  ...(retry ? { 'outcome.$': '$.outcome' } : {}),
  answer: {},
  partAnswer: {},
});

const stepParameters = (spec: IntegrationSpec, extra: Record<string, unknown> = {}) => ({ ...RUN_INPUT, ...spec.input, ...extra });

/** The state that ends a branch with its integration's answer. */
const doneState = (state: string) => `${state}Done`;

/**
 * After an integration's own step (its answer kept at $.answer): the parts
 * that wait for it, one after another; then the branch answers for the
 * integration itself. In the first pass a part's failure is caught and rides
 * along under `then`, as that part's integration's failure.
 */
function chainParts(parts: Part[], build: Build, pass: 'first' | 'retry', done: string): { first: string; states: Record<string, State> } {
  const name = (p: Part) => (pass === 'retry' ? `Re${p.state}` : p.state);
  const states: Record<string, State> = {};
  parts.forEach((p, i) => {
    const following = parts[i + 1];
    Object.assign(
      states,
      pacedTask(name(p), specOf(p.owner, build), {
        parameters: stepParameters(specOf(p.owner, build), { part: p.part }),
        answerPath: PART_ANSWER,
        next: following ? name(following) : done,
        ...(pass === 'first' ? { Catch: catchAll(`${name(p)}Failed`) } : {}),
      }),
    );
    if (pass === 'first') {
      states[`${name(p)}Failed`] = {
        Type: 'Pass',
        Parameters: { 'integration.$': '$.answer.integration', 'outcome.$': '$.answer.outcome', then: { integration: p.owner, outcome: 'failed', 'error.$': '$.error' } },
        End: true,
      };
    }
  });
  return { first: parts.length ? name(parts[0]!) : done, states };
}

/** The first pass of one integration: its step and the parts that wait for it; a lasting failure becomes a `failed` outcome. */
function firstPassBranch(key: string, build: Build) {
  const spec = specOf(key, build);
  const task = stateOf(spec.step);
  const after = chainParts(partsAfter(key, build), build, 'first', doneState(task));
  return {
    StartAt: task,
    States: {
      ...pacedTask(task, spec, { parameters: stepParameters(spec), answerPath: ANSWER, next: after.first, Catch: catchAll(`${task}Failed`) }),
      [`${task}Failed`]: failedOutcome(key),
      ...after.states,
      [doneState(task)]: { Type: 'Pass', OutputPath: ANSWER, End: true },
    },
  };
}

/** The retry pass of one integration: held for a redrive if it failed, else unchanged. No Catch: what fails now stops the run for an operator. */
function retryBranch(key: string, build: Build) {
  const spec = specOf(key, build);
  const task = stateOf(spec.step);
  const after = chainParts(partsAfter(key, build), build, 'retry', doneState(`Re${task}`));
  return {
    StartAt: `Retry${task}?`,
    States: {
      [`Retry${task}?`]: {
        Type: 'Choice',
        Choices: [{ Variable: `$.outcome.failed.${key}`, BooleanEquals: true, Next: `Re${task}` }],
        Default: `${task}Unchanged`,
      },
      ...pacedTask(`Re${task}`, spec, { parameters: stepParameters(spec, HELD), answerPath: ANSWER, next: after.first }),
      [`${task}Unchanged`]: { Type: 'Pass', Parameters: { integration: key, outcome: 'unchanged' }, End: true },
      ...after.states,
      [doneState(`Re${task}`)]: { Type: 'Pass', OutputPath: ANSWER, End: true },
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

function recordOutcome(name: string, workflow: Workflow<string>, results: string[], next: string): State {
  return lambdaTask('record-outcome', {
    parameters: {
      ...RUN_INPUT,
      workflow: name,
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

/**
 * The opening: an optional Wait until the input's notBefore, then the opening
 * step (its answer at $.slug), then, for one that may stop, a Choice ending
 * the run when it answered proceed: false.
 */
function opening(workflow: Workflow<string>, first: string): { StartAt: string; states: Record<string, State> } {
  const { step, waits, mayStop } = workflow.opening;
  const task = stateOf(step);
  const states: Record<string, State> = {
    [task]: lambdaTask(step, {
      parameters: { 'accountId.$': '$.accountId', ...(mayStop ? { 'runId.$': '$.runId' } : {}) },
      timeoutSeconds: BOOKKEEPING_TIMEOUT,
      retry: bookkeepingRetry,
      ResultPath: '$.slug',
      Next: mayStop ? 'Proceed?' : first,
    }),
  };
  if (waits) states.NotBefore = { Type: 'Wait', TimestampPath: '$.notBefore', Next: task };
  if (mayStop) {
    states['Proceed?'] = { Type: 'Choice', Choices: [{ Variable: '$.slug.proceed', BooleanEquals: false, Next: 'Stopped' }], Default: first };
    states.Stopped = { Type: 'Succeed' };
  }
  return { StartAt: waits ? 'NotBefore' : task, states };
}

/** The state machine of one workflow; `registry` is the integrations it draws on. */
export function workflowMachine(name: string, workflow: Workflow<string>, registry: Registry = integrations): Machine {
  const build: Build = { registry, workflow };
  const { stages } = workflow;
  const start = opening(workflow, stages[0]!.name);
  const states: Record<string, State> = { ...start.states };

  stages.forEach((stage, i) => {
    const next = stages[i + 1]?.name ?? 'RecordOutcome';
    const hook = stage.then && stateOf(stage.then.step);
    states[stage.name] = {
      Type: 'Parallel',
      Parameters: branchInput(false),
      ResultPath: resultsOf(stage),
      Branches: stage.run.map((key) => firstPassBranch(key, build)),
      Next: hook ?? next,
    };
    if (stage.then) states[hook!] = stageBookkeeping(stage.then, resultsOf(stage), next);
  });
  states.RecordOutcome = recordOutcome(name, workflow, stages.map(resultsOf), 'AllIntegrationsDone?');
  states['AllIntegrationsDone?'] = {
    Type: 'Choice',
    Choices: [{ Variable: '$.outcome.success', BooleanEquals: true, Next: 'Done' }],
    Default: retryStateOf(stages[0]!, 0),
  };

  stages.forEach((stage, i) => {
    const next = stages[i + 1] ? retryStateOf(stages[i + 1]!, i + 1) : 'RecordRetryOutcome';
    const hook = stage.then && `Re${stateOf(stage.then.step)}`;
    states[retryStateOf(stage, i)] = {
      Type: 'Parallel',
      Parameters: branchInput(true),
      ResultPath: retriedResultsOf(stage),
      Branches: stage.run.map((key) => retryBranch(key, build)),
      Next: hook ?? next,
    };
    if (stage.then) states[hook!] = stageBookkeeping(stage.then, retriedResultsOf(stage), next);
  });
  states.RecordRetryOutcome = recordOutcome(name, workflow, stages.map(retriedResultsOf), 'Done');
  states.Done = { Type: 'Succeed' };

  return {
    Comment:
      `The ${name} workflow of lib/provisioning/registry.ts, for one client account. ` +
      `${workflow.opening.waits ? 'It waits until its input\'s notBefore, then ' : ''}${stateOf(workflow.opening.step)} first` +
      `${workflow.opening.mayStop ? ' (which may end the run: Stopped)' : ''}; then each stage runs its integrations' ${workflow.action === 'takeBack' ? 'take-back steps' : 'steps'} side by side ` +
      `(${stages.map((s) => `${s.name}: ${s.run.join(', ')}`).join('; then ')}), each retried by its policy and caught, so no integration stops another. ` +
      'RecordOutcome writes the answer, the statuses and the follow-ups. If anything failed, the retry phase (from RetryFailedIntegrations) holds each ' +
      'failed integration in a task that fails with AwaitingRedrive on the first pass: the execution ends FAILED there, and a redrive runs just those again.',
    StartAt: start.StartAt,
    States: states,
  };
}

export const workflowMachines = Object.fromEntries(
  Object.entries(workflows).map(([name, workflow]) => [name, workflowMachine(name, workflow as Workflow<string>)]),
) as Record<WorkflowName, Machine>;
