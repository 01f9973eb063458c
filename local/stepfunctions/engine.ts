// A Standard-workflow engine for the local stack: runs the project's ASL with
// aws-local-stepfunctions, invoking the step Lambdas itself so it can keep
// AWS-shaped history and support what operators do on AWS: list, describe,
// read history, stop, and redrive (re-running only what did not succeed).
import { ExecutionAbortedError, ExecutionError, ExecutionTimeoutError, StateMachine } from 'aws-local-stepfunctions';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface MachineDefinition {
  arn: string;
  name: string;
  /** The ASL with every Lambda Resource replaced by its function name. */
  definition: Record<string, unknown>;
  /** Function name → the ARN it stands for in history. */
  functionArns: Record<string, string>;
  roleArn: string;
  creationDate: number;
}

export interface HistoryEvent {
  id: number;
  previousEventId: number;
  timestamp: number;
  type: string;
  [details: string]: unknown;
}

export interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  redriveCount: number;
  redriveDate?: number;
  events: HistoryEvent[];
  /** Each time a top-level state was entered: what a redrive resumes from. */
  entries: { state: string; input: Json; at: number }[];
  /** Raw results of Task states that succeeded, with when; a redrive replays those of the failed state's last entry. */
  taskResults: { state: string; result: Json; at: number }[];
  /** Where a redrive resumes: the top-level state that did not finish, with the input it had. */
  resumeAt?: { state: string; input: Json; at: number };
}

export type InvokeOutcome =
  | { ok: true; payload: Json }
  | { ok: false; errorType: string; errorMessage: string; trace?: string[] };

export type Invoke = (functionName: string, payload: Json) => Promise<InvokeOutcome>;

export class SfnError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

const NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;
const MAX_INPUT_BYTES = 256 * 1024;

export class StepFunctionsEngine {
  private readonly machines = new Map<string, MachineDefinition>();
  private readonly executions = new Map<string, Execution>();
  private readonly runs = new Map<string, { abort(): void; done: Promise<void> }>();
  /** While set, tasks wait for it before invoking their Lambda (hold/release). */
  private held?: { release(): void; until: Promise<void> };
  /** While set, every Wait state started lasts this long instead (time made short in a test: shortenWaits). */
  private waitOverrideMs?: number;

  private readonly invoke: Invoke;
  private readonly dataDir?: string;

  constructor(machines: MachineDefinition[], invoke: Invoke, dataDir?: string) {
    this.invoke = invoke;
    this.dataDir = dataDir;
    for (const m of machines) {
      // Validated once here (an invalid definition stops the stack at start); runs skip it, since a
      // redrive starts at a later state and leaves earlier ones unreachable.
      new StateMachine(m.definition as never, { validationOptions: { checkArn: false, checkPaths: true } });
      this.machines.set(m.arn, m);
    }
    if (dataDir) {
      mkdirSync(dataDir, { recursive: true });
      this.recover();
    }
  }

  listStateMachines() {
    return [...this.machines.values()].map((m) => ({
      stateMachineArn: m.arn,
      name: m.name,
      type: 'STANDARD',
      creationDate: m.creationDate,
    }));
  }

  describeStateMachine(arn: string) {
    const m = this.machine(arn);
    return {
      stateMachineArn: m.arn,
      name: m.name,
      status: 'ACTIVE',
      definition: JSON.stringify(m.definition),
      roleArn: m.roleArn,
      type: 'STANDARD',
      creationDate: m.creationDate,
    };
  }

  startExecution(stateMachineArn: string, name: string | undefined, input: string | undefined) {
    const machine = this.machine(stateMachineArn);
    const execName = name ?? crypto.randomUUID();
    if (!NAME.test(execName)) throw new SfnError('InvalidName', `Invalid Name: '${execName}'`);
    const rawInput = input ?? '{}';
    if (Buffer.byteLength(rawInput) > MAX_INPUT_BYTES) throw new SfnError('InvalidExecutionInput', 'Input exceeds 256 KiB');
    try {
      JSON.parse(rawInput);
    } catch {
      throw new SfnError('InvalidExecutionInput', 'Invalid State Machine Execution Input: not valid JSON');
    }
    const executionArn = machine.arn.replace(':stateMachine:', ':execution:') + `:${execName}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      // As on AWS: the same name and input while running is the same execution; anything else is refused.
      if (existing.status === 'RUNNING' && existing.input === rawInput) {
        return { executionArn, startDate: existing.startDate };
      }
      throw new SfnError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const execution: Execution = {
      executionArn,
      stateMachineArn: machine.arn,
      name: execName,
      status: 'RUNNING',
      startDate: Date.now(),
      input: rawInput,
      redriveCount: 0,
      events: [],
      entries: [],
      taskResults: [],
    };
    this.executions.set(executionArn, execution);
    this.record(execution, 'ExecutionStarted', {
      executionStartedEventDetails: { input: rawInput, inputDetails: { truncated: false }, roleArn: machine.roleArn },
    });
    this.start(execution, machine);
    return { executionArn, startDate: execution.startDate };
  }

  describeExecution(executionArn: string) {
    const e = this.execution(executionArn);
    return {
      executionArn: e.executionArn,
      stateMachineArn: e.stateMachineArn,
      name: e.name,
      status: e.status,
      startDate: e.startDate,
      stopDate: e.stopDate,
      input: e.input,
      inputDetails: { included: true },
      output: e.output,
      outputDetails: e.output === undefined ? undefined : { included: true },
      error: e.error,
      cause: e.cause,
      redriveCount: e.redriveCount,
      redriveDate: e.redriveDate,
      redriveStatus: this.redrivable(e) ? 'REDRIVABLE' : 'NOT_REDRIVABLE',
      redriveStatusReason: this.redrivable(e) ? undefined : `Execution is ${e.status}`,
    };
  }

  listExecutions(stateMachineArn: string, statusFilter?: ExecutionStatus, maxResults = 100, nextToken?: string) {
    this.machine(stateMachineArn);
    const all = [...this.executions.values()]
      .filter((e) => e.stateMachineArn === stateMachineArn && (!statusFilter || e.status === statusFilter))
      .sort((a, b) => b.startDate - a.startDate);
    const start = nextToken ? Number(nextToken) : 0;
    const page = all.slice(start, start + (maxResults || 100));
    return {
      executions: page.map((e) => ({
        executionArn: e.executionArn,
        stateMachineArn: e.stateMachineArn,
        name: e.name,
        status: e.status,
        startDate: e.startDate,
        stopDate: e.stopDate,
        redriveCount: e.redriveCount,
        redriveDate: e.redriveDate,
      })),
      nextToken: start + page.length < all.length ? String(start + page.length) : undefined,
    };
  }

  getExecutionHistory(executionArn: string, reverseOrder = false, maxResults = 1000, nextToken?: string) {
    const e = this.execution(executionArn);
    const events = reverseOrder ? [...e.events].reverse() : e.events;
    const start = nextToken ? Number(nextToken) : 0;
    const page = events.slice(start, start + (maxResults || 1000));
    return { events: page, nextToken: start + page.length < events.length ? String(start + page.length) : undefined };
  }

  stopExecution(executionArn: string, error?: string, cause?: string) {
    const e = this.execution(executionArn);
    if (e.status !== 'RUNNING') throw new SfnError('ValidationException', `Execution is ${e.status}`);
    e.error = error;
    e.cause = cause;
    this.runs.get(executionArn)?.abort();
    this.finish(e, 'ABORTED', { executionAbortedEventDetails: { error, cause } });
    return { stopDate: e.stopDate };
  }

  redriveExecution(executionArn: string) {
    const e = this.execution(executionArn);
    if (!this.redrivable(e)) throw new SfnError('ExecutionNotRedrivable', `Execution is ${e.status}`);
    e.status = 'RUNNING';
    e.redriveCount += 1;
    e.redriveDate = Date.now();
    e.stopDate = undefined;
    e.error = undefined;
    e.cause = undefined;
    e.output = undefined;
    this.record(e, 'ExecutionRedriven', { executionRedrivenEventDetails: { redriveCount: e.redriveCount } });
    this.start(e, this.machine(e.stateMachineArn));
    return { redriveDate: e.redriveDate };
  }

  /**
   * The bench's: from now on, every task waits before invoking its Lambda until
   * release(). Executions still start and are recorded as on AWS; their work
   * just does not share this machine's two cores with the requests being timed
   * (on AWS it runs in Lambdas of its own). Not reachable over HTTP.
   */
  hold() {
    if (this.held) return;
    let release!: () => void;
    const until = new Promise<void>((resolve) => (release = resolve));
    this.held = { release, until };
  }

  /** Lets the held tasks go on (see hold). */
  release() {
    this.held?.release();
    this.held = undefined;
  }

  /**
   * Time made short, for tests of long waits (a vendor's reset minutes away): from now on every Wait
   * state that starts lasts `seconds` instead of what it says; undefined ends that. Waits already
   * started keep their time. Not an AWS operation: the local server offers it at /_local/waits.
   */
  shortenWaits(seconds: number | undefined) {
    this.waitOverrideMs = seconds === undefined ? undefined : seconds * 1000;
  }

  /** Resolves when every running execution has settled (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }

  /** Stops every run without marking it: on restart it is found RUNNING and recovered as ABORTED. */
  shutdown() {
    for (const run of this.runs.values()) run.abort();
    this.runs.clear();
  }

  private start(execution: Execution, machine: MachineDefinition) {
    // A redrive resumes at the top-level state that did not finish, with the input it had, as on AWS.
    // Inside it (a Parallel), tasks that succeeded during its last entry are replayed, not re-run, each
    // once: the same task entered again (a branch that loops) is a step that has not succeeded yet
    // (RedriveExecution, AWS Step Functions API Reference: the steps that succeeded are not run again).
    const resume = execution.redriveCount > 0 ? execution.resumeAt : undefined;
    const replay = new Map<string, Json>();
    if (resume) {
      const inside = new Set(statesUnder(machine.definition, resume.state));
      for (const t of execution.taskResults) if (inside.has(t.state) && t.at >= resume.at) replay.set(t.state, t.result);
    }
    const definition = resume ? { ...machine.definition, StartAt: resume.state } : machine.definition;
    const input = resume ? resume.input : (JSON.parse(execution.input) as Json);
    const topLevel = new Set(Object.keys((machine.definition.States ?? {}) as object));

    const history = new CausalHistory(machine.definition, execution.events.length, (type, details, previous) => this.record(execution, type, details, previous));

    // As on AWS, a run that has ended (succeeded, failed, stopped, timed out, or shut down) schedules no
    // more tasks and records nothing more: a Lambda still at work may finish, but its answer is dropped.
    // The library's retry wait ends early when its run is aborted (a failing Parallel branch aborts its
    // siblings), and would call the task again at once; the handler waits for the abort to settle the
    // run first, then gives up.
    let ended = false;
    // And its history is closed once its last event is recorded (or about to be): nothing of this run,
    // a late timeout included, may land in the history of a redrive that follows.
    let closed = false;
    const never = () => new Promise<never>(() => {});

    const handlers: Record<string, (input: Json) => Promise<Json>> = {};
    for (const [stateName, state] of collectStates(machine.definition, 'Task')) {
      const functionName = String(state.Resource);
      const timeoutMs = typeof state.TimeoutSeconds === 'number' ? state.TimeoutSeconds * 1000 : undefined;
      const runTask = async (taskInput: Json, deadline: Promise<'timed-out'>) => {
        if (replay.has(stateName)) {
          const replayed = replay.get(stateName)!;
          replay.delete(stateName);
          return replayed;
        }
        await new Promise((resolve) => setImmediate(resolve));
        if (this.held) await this.held.until;
        if (ended) return never();
        const resource = machine.functionArns[functionName] ?? functionName;
        // As on AWS, the Lambda's events follow its TaskStateEntered, each pointing back at its cause
        // (scheduled → entered, or the failure before a retry; started → scheduled; outcome → started).
        await history.entered(stateName);
        const scheduled = history.append(stateName, 'LambdaFunctionScheduled', {
          lambdaFunctionScheduledEventDetails: { resource, input: JSON.stringify(taskInput) },
        });
        const started = this.record(execution, 'LambdaFunctionStarted', {}, scheduled);
        const outcome = await Promise.race([this.invoke(functionName, taskInput), deadline]);
        if (outcome === 'timed-out') {
          // Past the state's TimeoutSeconds: recorded as AWS records it, and the Lambda's late answer is
          // dropped. The library's own timer, armed just after this one, fails the state with States.Timeout.
          const cause = `The task did not answer within ${state.TimeoutSeconds} s`;
          if (!closed) history.append(stateName, 'LambdaFunctionTimedOut', { lambdaFunctionTimedOutEventDetails: { error: 'States.Timeout', cause } }, started);
          return never();
        }
        if (ended) return never();
        if (outcome.ok) {
          execution.taskResults.push({ state: stateName, result: outcome.payload, at: Date.now() });
          history.append(stateName, 'LambdaFunctionSucceeded', { lambdaFunctionSucceededEventDetails: { output: JSON.stringify(outcome.payload) } }, started);
          return outcome.payload;
        }
        // Shaped as on AWS: the error is the errorType, the cause the JSON of the Lambda's error.
        const cause = JSON.stringify({ errorType: outcome.errorType, errorMessage: outcome.errorMessage, trace: outcome.trace ?? [] });
        history.append(stateName, 'LambdaFunctionFailed', { lambdaFunctionFailedEventDetails: { error: outcome.errorType, cause } }, started);
        const error = new Error(cause);
        error.name = outcome.errorType;
        throw error;
      };
      // The deadline is armed as the handler is called, just before the library arms its own TimeoutSeconds
      // timer: of two timers of one duration the first armed fires first, so the event is recorded before
      // the library's timeout can end the run.
      handlers[stateName] = (taskInput) => {
        const deadline = deadlineAfter(timeoutMs);
        return runTask(taskInput, deadline.timedOut).finally(deadline.clear);
      };
    }

    const sm = new StateMachine(definition as never, { validationOptions: { noValidate: true } });
    // Read by the library as each Wait state starts.
    const waitTimeOverrides = new Proxy({} as Record<string, number>, { get: () => this.waitOverrideMs });
    const run = sm.run(input, {
      overrides: { taskResourceLocalHandlers: handlers as never, waitTimeOverrides },
      context: {
        Execution: {
          Id: execution.executionArn,
          Name: execution.name,
          Input: JSON.parse(execution.input),
          StartTime: new Date(execution.startDate).toISOString(),
          RoleArn: machine.roleArn,
          RedriveCount: execution.redriveCount,
        },
        StateMachine: { Id: machine.arn, Name: machine.name },
      },
    });

    const translate = (async () => {
      for await (const event of run.eventLogs) this.translate(execution, event as LibraryEvent, topLevel, history);
    })();

    const done = (async () => {
      let outcome: { ok: true; output: unknown } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, output: await run.result };
      } catch (error) {
        outcome = { ok: false, error };
      }
      // The last states' events are still queued when the result settles: record them first.
      await Promise.race([translate, new Promise((r) => setTimeout(r, 1000))]);
      closed = true;
      if (execution.status !== 'RUNNING') return;
      if (outcome.ok) {
        execution.output = JSON.stringify(outcome.output);
        this.finish(execution, 'SUCCEEDED', {
          executionSucceededEventDetails: { output: execution.output, outputDetails: { truncated: false } },
        });
        return;
      }
      const error = outcome.error;
      if (error instanceof ExecutionAbortedError) return; // stopExecution already recorded it
      if (error instanceof ExecutionTimeoutError) {
        execution.error = 'States.Timeout';
        this.finish(execution, 'TIMED_OUT', { executionTimedOutEventDetails: { error: 'States.Timeout' } });
        return;
      }
      const cause = error instanceof ExecutionError ? (error.cause as Error) : (error as Error);
      execution.error = cause?.name ?? 'States.Runtime';
      execution.cause = cause?.message;
      this.finish(execution, 'FAILED', { executionFailedEventDetails: { error: execution.error, cause: execution.cause } });
    })();
    void run.result.then(
      () => (ended = true),
      () => (ended = true),
    );
    const settled = done.catch(() => undefined);
    const abort = () => {
      ended = true;
      closed = true;
      run.abort();
    };
    this.runs.set(execution.executionArn, { abort, done: settled });
    void settled.then(() => {
      if (this.runs.get(execution.executionArn)?.done === settled) this.runs.delete(execution.executionArn);
    });
  }

  private translate(execution: Execution, event: LibraryEvent, topLevel: Set<string>, history: CausalHistory) {
    if (!event.state) return;
    const { name, type, input, output } = event.state;
    switch (event.type) {
      case 'StateEntered':
        if (topLevel.has(name) && event.index === undefined) {
          execution.entries.push({ state: name, input: (input ?? null) as Json, at: event.timestamp });
        }
        history.enter(name, type, { stateEnteredEventDetails: { name, input: JSON.stringify(input ?? null) } });
        break;
      case 'StateExited':
        history.exit(name, type, { stateExitedEventDetails: { name, output: JSON.stringify(output ?? null) } });
        break;
      case 'StateFailed':
        // A Task's failure is its LambdaFunctionFailed; of the other states only Parallel and Map have a Failed event.
        if (type === 'Parallel' || type === 'Map') history.fail(name, type, { stateFailedEventDetails: { name, error: event.Error } });
        break;
    }
  }

  private finish(execution: Execution, status: ExecutionStatus, details: Record<string, unknown>) {
    execution.status = status;
    execution.stopDate = Date.now();
    if (status !== 'SUCCEEDED') execution.resumeAt = execution.entries.at(-1);
    const type = { SUCCEEDED: 'ExecutionSucceeded', FAILED: 'ExecutionFailed', TIMED_OUT: 'ExecutionTimedOut', ABORTED: 'ExecutionAborted', RUNNING: '' }[status];
    this.record(execution, type, details);
  }

  private record(execution: Execution, type: string, details: Record<string, unknown>, previousEventId?: number): number {
    const id = execution.events.length + 1;
    execution.events.push({ id, previousEventId: previousEventId ?? id - 1, timestamp: Date.now(), type, ...details });
    this.persist(execution);
    return id;
  }

  private redrivable(e: Execution) {
    return e.status === 'FAILED' || e.status === 'ABORTED' || e.status === 'TIMED_OUT';
  }

  private machine(arn: string): MachineDefinition {
    const m = this.machines.get(arn);
    if (!m) throw new SfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    return m;
  }

  private execution(arn: string): Execution {
    const e = this.executions.get(arn);
    if (!e) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return e;
  }

  private fileOf(e: Execution) {
    return join(this.dataDir!, `${encodeURIComponent(e.executionArn)}.json`);
  }

  private persist(execution: Execution) {
    if (this.dataDir) writeFileSync(this.fileOf(execution), JSON.stringify(execution));
  }

  /** Executions that were running when the stack stopped are marked ABORTED, so a redrive can finish them. */
  private recover() {
    for (const file of readdirSync(this.dataDir!)) {
      if (!file.endsWith('.json')) continue;
      const execution = JSON.parse(readFileSync(join(this.dataDir!, file), 'utf8')) as Execution;
      if (!this.machines.has(execution.stateMachineArn)) continue;
      this.executions.set(execution.executionArn, execution);
      if (execution.status === 'RUNNING') {
        execution.error = 'States.Runtime';
        execution.cause = 'The local stack stopped while this execution was running; redrive it to finish';
        this.finish(execution, 'ABORTED', { executionAbortedEventDetails: { error: execution.error, cause: execution.cause } });
      }
    }
  }
}

type Append = (type: string, details: Record<string, unknown>, previousEventId: number) => number;

/**
 * Keeps the history in causal order with AWS's previousEventId chains
 * (GetExecutionHistory; HistoryEvent: ids sequential from 1, previousEventId
 * the event before it in its own thread). Each Parallel branch is a thread of
 * its own, started by its ParallelStateStarted; a Parallel ends with
 * ParallelStateSucceeded (after the last branch event) and ParallelStateExited.
 * The library reports state events asynchronously, nested ones later still, so
 * a Task's Lambda waits until its TaskStateEntered is recorded.
 */
class CausalHistory {
  /** The thread each state runs in: 'root', or `<Parallel>#<branch index>`. */
  private readonly threadOf = new Map<string, string>();
  private readonly branchesOf = new Map<string, string[]>();
  /** The last event of each thread. */
  private readonly last = new Map<string, number>();
  private readonly inside = new Set<string>();
  private readonly failed = new Set<string>();
  /** The last failure (LambdaFunctionFailed or TimedOut, ParallelStateFailed) of each thread: what fails a Parallel. */
  private readonly failures = new Map<string, number>();
  private readonly record: Append;

  constructor(definition: Record<string, unknown>, lastEventId: number, record: Append) {
    this.record = record;
    const visit = (def: Record<string, unknown>, thread: string) => {
      for (const [name, state] of Object.entries((def.States ?? {}) as Record<string, Record<string, unknown>>)) {
        this.threadOf.set(name, thread);
        const branches = (state.Branches as Record<string, unknown>[] | undefined) ?? [];
        this.branchesOf.set(name, branches.map((_, i) => `${name}#${i}`));
        branches.forEach((branch, i) => visit(branch, `${name}#${i}`));
        const processor = (state.ItemProcessor ?? state.Iterator) as Record<string, unknown> | undefined;
        if (processor) visit(processor, `${name}#items`);
      }
    };
    visit(definition, 'root');
    this.last.set('root', lastEventId);
  }

  private thread(state: string) {
    return this.threadOf.get(state) ?? 'root';
  }

  private lastOf(thread: string) {
    return this.last.get(thread) ?? this.last.get('root')!;
  }

  /** Records an event of `state`'s thread, caused by `previous` or else by the thread's last event. */
  append(state: string, type: string, details: Record<string, unknown>, previous?: number): number {
    const thread = this.thread(state);
    const id = this.record(type, details, previous ?? this.lastOf(thread));
    this.last.set(thread, id);
    if (/(Failed|TimedOut)$/.test(type)) this.failures.set(thread, id);
    return id;
  }

  enter(state: string, type: string, details: Record<string, unknown>) {
    const entered = this.append(state, `${type}StateEntered`, details);
    this.failed.delete(state);
    for (const branch of this.branchesOf.get(state) ?? []) this.failures.delete(branch);
    if (type === 'Parallel' || type === 'Map') {
      const started = this.append(state, `${type}StateStarted`, {}, entered);
      for (const branch of this.branchesOf.get(state) ?? []) this.last.set(branch, started);
      this.last.set(`${state}#items`, started);
    }
    this.inside.add(state);
  }

  exit(state: string, type: string, details: Record<string, unknown>) {
    if ((type === 'Parallel' || type === 'Map') && !this.failed.has(state)) this.append(state, `${type}StateSucceeded`, {}, this.lastOfBranches(state));
    this.append(state, `${type}StateExited`, details);
    this.inside.delete(state);
  }

  fail(state: string, type: string, details: Record<string, unknown>) {
    this.failed.add(state);
    const branches = [...(this.branchesOf.get(state) ?? []), `${state}#items`];
    const failure = Math.max(0, ...branches.map((b) => this.failures.get(b) ?? 0));
    this.append(state, `${type}StateFailed`, details, failure || this.lastOfBranches(state));
  }

  private lastOfBranches(state: string) {
    const ids = [...(this.branchesOf.get(state) ?? []), `${state}#items`].map((b) => this.last.get(b) ?? 0);
    return Math.max(this.lastOf(this.thread(state)), ...ids);
  }

  /** Resolves once `state`'s StateEntered is recorded (the library's events arrive a few turns late). */
  async entered(state: string) {
    for (let turn = 0; !this.inside.has(state) && turn < 1000; turn++) await new Promise((r) => setImmediate(r));
  }
}

interface LibraryEvent {
  type: string;
  timestamp: number;
  /** Set on events of Map iterations. */
  index?: number;
  state?: { name: string; type: string; input?: unknown; output?: unknown };
  Error?: string;
}

/** The names of a state and of every state nested in it (Parallel branches, Map processors). */
export function statesUnder(definition: Record<string, unknown>, stateName: string): string[] {
  const state = ((definition.States ?? {}) as Record<string, Record<string, unknown>>)[stateName];
  if (!state) return [];
  const nested = [...((state.Branches as Record<string, unknown>[] | undefined) ?? [])];
  const processor = (state.ItemProcessor ?? state.Iterator) as Record<string, unknown> | undefined;
  if (processor) nested.push(processor);
  return [stateName, ...nested.flatMap((def) => collectStates(def, undefined).map(([name]) => name))];
}

/** Every state of the given type (any type when undefined), including those inside Parallel branches and Map processors. */
export function collectStates(definition: Record<string, unknown>, type: string | undefined): [string, Record<string, unknown>][] {
  const found: [string, Record<string, unknown>][] = [];
  const visit = (def: { States?: Record<string, Record<string, unknown>> }) => {
    for (const [name, state] of Object.entries(def.States ?? {})) {
      if (type === undefined || state.Type === type) found.push([name, state]);
      for (const branch of (state.Branches as object[] | undefined) ?? []) visit(branch);
      const processor = (state.ItemProcessor ?? state.Iterator) as object | undefined;
      if (processor) visit(processor);
    }
  };
  visit(definition);
  return found;
}

/** 'timed-out' once `ms` have passed (never without `ms`), and a way to stop waiting. */
function deadlineAfter(ms: number | undefined): { timedOut: Promise<'timed-out'>; clear: () => void } {
  if (ms === undefined) return { timedOut: new Promise(() => {}), clear: () => {} };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed-out'>((resolve) => (timer = setTimeout(() => resolve('timed-out'), ms)));
  return { timedOut, clear: () => clearTimeout(timer) };
}
