// The local execution history, read as an operator reads it on AWS
// (GetExecutionHistory): events numbered from 1 in the order they happened,
// each pointing (previousEventId) at the event that caused it. For a Lambda
// task AWS writes TaskStateEntered → LambdaFunctionScheduled →
// LambdaFunctionStarted → LambdaFunctionSucceeded/Failed → TaskStateExited;
// for a Parallel ParallelStateEntered → ParallelStateStarted → each branch's
// events (chained from ParallelStateStarted) → ParallelStateSucceeded →
// ParallelStateExited.
import { describe, expect, it } from 'vitest';
import { StepFunctionsEngine, type HistoryEvent, type Invoke, type MachineDefinition } from '../../../local/stepfunctions/engine.ts';
import { stepOfPlaceholder } from '../../../statemachines/asl.ts';
import { workflowMachines } from '../../../statemachines/workflows.ts';

const ACCOUNT = '000000000000';

/** A machine as the local stack builds it: each ${<Step>Arn} becomes the step's function name. */
function local(name: string, definition: object): MachineDefinition {
  const text = JSON.stringify(definition).replace(/\$\{(\w+)\}/g, (_, p: string) => stepOfPlaceholder(p));
  return {
    arn: `arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:${name}`,
    name,
    definition: JSON.parse(text),
    functionArns: {},
    roleArn: `arn:aws:iam::${ACCOUNT}:role/r`,
    creationDate: Date.now(),
  };
}

/** Step Lambdas that answer as ours do; `fail` names the ones that fail, with their error. */
function lambdas(outcome: Record<string, unknown>, fail: Record<string, string> = {}): Invoke {
  return async (fn): ReturnType<Invoke> => {
    // A turn of the event loop, as a real invocation takes: lets the branches interleave.
    await new Promise((r) => setImmediate(r));
    if (fail[fn]) return { ok: false, errorType: fail[fn], errorMessage: `${fn} failed` };
    if (fn === 'assign-slug') return { ok: true, payload: { portalSlug: 'acme' } as never };
    if (fn === 'record-outcome') return { ok: true, payload: outcome as never };
    return { ok: true, payload: { integration: fn, outcome: 'created' } as never };
  };
}

async function run(machine: MachineDefinition, invoke: Invoke) {
  const engine = new StepFunctionsEngine([machine], invoke);
  const { executionArn } = engine.startExecution(machine.arn, 'run-1', JSON.stringify({ accountId: 'acc-1', email: 'owner@acme.example', runId: 'r-1' }));
  await engine.idle();
  return { status: engine.describeExecution(executionArn).status, events: engine.getExecutionHistory(executionArn).events };
}

const name = (e: HistoryEvent) => (e.stateEnteredEventDetails ?? e.stateExitedEventDetails ?? e.stateFailedEventDetails) as { name: string } | undefined;
const ENTERED = /^(Task|Pass|Choice|Parallel|Succeed|Fail|Wait|Map)StateEntered$/;
const EXITED = /StateExited$/;

/** What may cause each event type, as AWS chains them. */
const CAUSES: Record<string, RegExp> = {
  LambdaFunctionScheduled: /^(TaskStateEntered|LambdaFunctionFailed)$/, // a retry follows the failure
  LambdaFunctionStarted: /^LambdaFunctionScheduled$/,
  LambdaFunctionSucceeded: /^LambdaFunctionStarted$/,
  LambdaFunctionFailed: /^LambdaFunctionStarted$/,
  TaskStateExited: /^LambdaFunctionSucceeded|LambdaFunctionFailed$/, // failed: caught
  PassStateExited: /^PassStateEntered$/,
  ChoiceStateExited: /^ChoiceStateEntered$/,
  SucceedStateExited: /^SucceedStateEntered$/,
  ParallelStateStarted: /^ParallelStateEntered$/,
  ParallelStateSucceeded: /StateExited$/,
  ParallelStateFailed: /^(LambdaFunctionFailed|ParallelStateFailed|\w+StateExited)$/,
  ParallelStateExited: /^ParallelState(Succeeded|Failed)$/,
  ExecutionSucceeded: /StateExited$/,
  ExecutionFailed: /^(LambdaFunctionFailed|ParallelStateFailed)$/,
};

/** Checks the history against AWS's order and chains; returns the problems found. */
function problems(events: HistoryEvent[], machine: MachineDefinition): string[] {
  const found: string[] = [];
  const byId = new Map(events.map((e) => [e.id, e]));
  const resources = new Map<string, string>();
  const visit = (def: Record<string, unknown>) => {
    for (const [n, s] of Object.entries((def.States ?? {}) as Record<string, Record<string, unknown>>)) {
      if (s.Type === 'Task') resources.set(n, String(s.Resource));
      for (const b of (s.Branches as Record<string, unknown>[] | undefined) ?? []) visit(b);
    }
  };
  visit(machine.definition);
  events.forEach((e, i) => {
    if (e.id !== i + 1) found.push(`event ${i + 1} has id ${e.id}`);
    if (e.previousEventId >= e.id) found.push(`${e.id} ${e.type} points forward to ${e.previousEventId}`);
    const cause = byId.get(e.previousEventId);
    if (e.type === 'ExecutionStarted') return void (e.previousEventId !== 0 && found.push('ExecutionStarted has a cause'));
    if (!cause) return void found.push(`${e.id} ${e.type} has no cause`);
    if (ENTERED.test(e.type)) {
      if (!/^(ExecutionStarted|ExecutionRedriven|ParallelStateStarted)$|StateExited$/.test(cause.type)) found.push(`${e.id} ${e.type} caused by ${cause.type}`);
      return;
    }
    const allowed = CAUSES[e.type];
    if (!allowed) return void found.push(`${e.id} ${e.type}: not a type this test knows`);
    if (!allowed.test(cause.type)) found.push(`${e.id} ${e.type} caused by ${cause.id} ${cause.type}`);
    if (EXITED.test(e.type) && e.type !== 'ParallelStateExited') {
      // Back along the chain to the Entered of the same state.
      let at: HistoryEvent | undefined = cause;
      while (at && !ENTERED.test(at.type)) at = byId.get(at.previousEventId);
      if (name(at!)?.name !== name(e)?.name) found.push(`${e.id} ${e.type} of ${name(e)?.name} chains to the entry of ${at && name(at)?.name}`);
    }
    if (e.type === 'LambdaFunctionScheduled') {
      let at: HistoryEvent | undefined = cause;
      while (at && at.type !== 'TaskStateEntered') at = byId.get(at.previousEventId);
      const resource = (e.lambdaFunctionScheduledEventDetails as { resource: string }).resource;
      if (resources.get(name(at!)!.name) !== resource) found.push(`${e.id} schedules ${resource} for ${name(at!)?.name}`);
    }
  });
  return found;
}

/** The event types along the chain that ends at `last`, oldest first. */
function chain(events: HistoryEvent[], last: HistoryEvent): string[] {
  const byId = new Map(events.map((e) => [e.id, e]));
  const types: string[] = [];
  for (let at: HistoryEvent | undefined = last; at; at = byId.get(at.previousEventId)) types.unshift(at.type);
  return types;
}

const LAMBDA_TASK = ['TaskStateEntered', 'LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionSucceeded', 'TaskStateExited'];

describe('local execution history, as AWS writes it', () => {
  const onboarding = local('svc-local-onboarding', workflowMachines.onboarding);

  it('an onboarding run: each Lambda follows its TaskStateEntered, Parallel branches included, ids increasing', async () => {
    const { status, events } = await run(onboarding, lambdas({ success: true }));
    expect(status).toBe('SUCCEEDED');
    expect(problems(events, onboarding)).toEqual([]);

    const types = events.map((e) => e.type);
    expect(types.slice(0, 1 + LAMBDA_TASK.length)).toEqual(['ExecutionStarted', ...LAMBDA_TASK]); // AssignSlug
    expect(types.at(-1)).toBe('ExecutionSucceeded');

    // Every Lambda of the run, branches included, is chained to its TaskStateEntered.
    const scheduled = events.filter((e) => e.type === 'LambdaFunctionScheduled');
    const branchTasks = (onboarding.definition.States as Record<string, { Branches?: unknown[] }>).Provision!.Branches!.length;
    expect(scheduled.length).toBeGreaterThanOrEqual(branchTasks + 2);
    for (const s of scheduled) expect(events[s.previousEventId - 1]!.type, `event ${s.id}`).toBe('TaskStateEntered');

    // The Parallel: entered, started; each branch starts from ParallelStateStarted; succeeded after the last branch event, then exited.
    const entered = events.find((e) => e.type === 'ParallelStateEntered')!;
    const started = events.find((e) => e.type === 'ParallelStateStarted')!;
    const succeeded = events.find((e) => e.type === 'ParallelStateSucceeded')!;
    const exited = events.find((e) => e.type === 'ParallelStateExited')!;
    expect(started.previousEventId).toBe(entered.id);
    expect(events.filter((e) => e.previousEventId === started.id && e.type === 'TaskStateEntered')).toHaveLength(branchTasks);
    expect(exited.previousEventId).toBe(succeeded.id);
    const branchEvents = events.filter((e) => e.id > started.id && e.id < succeeded.id);
    expect(succeeded.previousEventId).toBe(Math.max(...branchEvents.filter((e) => EXITED.test(e.type)).map((e) => e.id)));
    // Through the branch that ended last (its step, then any parts that wait for it), the chain reads as AWS documents it.
    const through = chain(events, exited);
    const inBranch = through.slice(8, -2);
    expect(through).toEqual([
      'ExecutionStarted', ...LAMBDA_TASK, 'ParallelStateEntered', 'ParallelStateStarted', ...inBranch, 'ParallelStateSucceeded', 'ParallelStateExited',
    ]);
    expect(inBranch.length).toBeGreaterThan(0);
    // Each task, then the Choice that sends a "waiting" answer to its Wait (none waited here); the branch ends in a Pass.
    const PACED_TASK = [...LAMBDA_TASK, 'ChoiceStateEntered', 'ChoiceStateExited'];
    const tasks = (inBranch.length - 2) / PACED_TASK.length;
    expect(inBranch).toEqual([...Array.from({ length: tasks }, () => PACED_TASK).flat(), 'PassStateEntered', 'PassStateExited']);
  });

  it('a run held for redrive: the failure is chained to its Lambda, the Parallel fails, then the execution', async () => {
    const machine = local('svc-local-onboarding', workflowMachines.onboarding);
    const provision = (machine.definition.States as Record<string, { Branches: { StartAt: string; States: Record<string, { Resource: string }> }[] }>).Provision!;
    const first = provision.Branches[0]!;
    const key = first.States[first.StartAt]!.Resource;
    // RecordOutcome says the first branch's integration failed; in the retry phase its step fails with AwaitingRedrive.
    const keys = [...JSON.stringify(workflowMachines.onboarding).matchAll(/outcome\.failed\.([\w-]+)/g)].map((m) => m[1]!);
    const failed = Object.fromEntries(keys.map((k, i) => [k, i === 0]));
    const { status, events } = await run(machine, lambdas({ success: false, failed }, { [key]: 'AwaitingRedrive' }));
    expect(status).toBe('FAILED');
    expect(problems(events, machine)).toEqual([]);
    const last = events.at(-1)!;
    expect(last.type).toBe('ExecutionFailed');
    expect(chain(events, last).slice(-5)).toEqual(['LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionFailed', 'ParallelStateFailed', 'ExecutionFailed']);
  });
});
