// The local Step Functions endpoint, driven through the real AWS SDK client.
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  RedriveExecutionCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Invoke, InvokeOutcome, MachineDefinition } from '../../../local/stepfunctions/engine.ts';
import { localMachine, serveLocalStepFunctions, stopLocalStepFunctions } from '../../support/local-sfn.ts';

// Prepare → (A ‖ B) → Finish, shaped like the onboarding machine.
const machine = localMachine('svc-local-demo', {
  StartAt: 'Prepare',
  States: {
    Prepare: { Type: 'Task', Resource: 'fn-prepare', ResultPath: '$.prepared', Next: 'Both' },
    Both: {
      Type: 'Parallel',
      ResultPath: '$.branches',
      Next: 'Finish',
      Branches: [
        { StartAt: 'A', States: { A: { Type: 'Task', Resource: 'fn-a', End: true } } },
        { StartAt: 'B', States: { B: { Type: 'Task', Resource: 'fn-b', End: true } } },
      ],
    },
    Finish: { Type: 'Task', Resource: 'fn-finish', End: true },
  },
});
const ARN = machine.arn;

/** One Parallel state, Both, whose branches are each one task (its name, and what the task says beside Type and End). */
const bothOf = (tasks: Record<string, Record<string, unknown>>) => ({
  StartAt: 'Both',
  States: {
    Both: {
      Type: 'Parallel',
      End: true,
      Branches: Object.entries(tasks).map(([name, task]) => ({ StartAt: name, States: { [name]: { Type: 'Task', ...task, End: true } } })),
    },
  },
});

function fakeLambdas(behaviour: Record<string, () => unknown>) {
  const calls: Record<string, number> = {};
  const invoke: Invoke = async (name, payload) => {
    calls[name] = (calls[name] ?? 0) + 1;
    try {
      const out = behaviour[name]?.() ?? { from: name };
      return { ok: true, payload: (out === 'echo' ? payload : out) as never };
    } catch (error) {
      return { ok: false, errorType: (error as Error).name, errorMessage: (error as Error).message };
    }
  };
  return { invoke, calls };
}

const dirs: string[] = [];
afterEach(async () => {
  await stopLocalStepFunctions();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const serve = (invoke: Invoke, dataDir?: string, machines: MachineDefinition[] = [machine]) => serveLocalStepFunctions(machines, invoke, dataDir);

describe('the local Step Functions endpoint', () => {
  it('runs an execution to completion and describes it as AWS does', async () => {
    const { invoke, calls } = fakeLambdas({ 'fn-finish': () => ({ done: true }) });
    const { engine, client } = await serve(invoke);
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'run-1', input: '{"x":1}' }));
    expect(started.executionArn).toBe('arn:aws:states:eu-west-1:000000000000:execution:svc-local-demo:run-1');
    expect(started.startDate).toBeInstanceOf(Date);
    await engine.idle();
    const described = await client.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!)).toEqual({ done: true });
    expect(calls).toEqual({ 'fn-prepare': 1, 'fn-a': 1, 'fn-b': 1, 'fn-finish': 1 });

    const history = await client.send(new GetExecutionHistoryCommand({ executionArn: started.executionArn }));
    const types = history.events!.map((e) => e.type);
    expect(types[0]).toBe('ExecutionStarted');
    expect(types.at(-1)).toBe('ExecutionSucceeded');
    expect(types.filter((t) => t === 'LambdaFunctionSucceeded')).toHaveLength(4);
  });

  it('treats the same name and input while running as the same execution, and refuses reuse otherwise', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { engine, client } = await serve(async (name) => {
      if (name === 'fn-prepare') await gate;
      return { ok: true, payload: {} };
    });
    const first = await client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'same', input: '{}' }));
    const again = await client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'same', input: '{}' }));
    expect(again.executionArn).toBe(first.executionArn);
    await expect(client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'same', input: '{"other":1}' }))).rejects.toBeInstanceOf(
      ExecutionAlreadyExists,
    );
    release();
    await engine.idle();
    await expect(client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'same', input: '{}' }))).rejects.toBeInstanceOf(
      ExecutionAlreadyExists,
    );
  });

  it('fails with the Lambda error shaped as on AWS, then redrives only what did not succeed', async () => {
    let bFails = true;
    const { invoke, calls } = fakeLambdas({
      'fn-b': () => {
        if (bFails) throw Object.assign(new Error('storage down'), { name: 'VendorUnavailable' });
        return { b: 'ok' };
      },
    });
    const { engine, client } = await serve(invoke);
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'redrive-me' }));
    await engine.idle();
    const failed = await client.send(new DescribeExecutionCommand({ executionArn }));
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toBe('VendorUnavailable');
    expect(JSON.parse(failed.cause!)).toMatchObject({ errorType: 'VendorUnavailable', errorMessage: 'storage down' });
    expect(failed.redriveStatus).toBe('REDRIVABLE');

    bFails = false;
    await client.send(new RedriveExecutionCommand({ executionArn }));
    await engine.idle();
    const redriven = await client.send(new DescribeExecutionCommand({ executionArn }));
    expect(redriven.status).toBe('SUCCEEDED');
    expect(redriven.redriveCount).toBe(1);
    // Prepare and A succeeded the first time and were not run again; B ran twice; Finish once.
    expect(calls).toEqual({ 'fn-prepare': 1, 'fn-a': 1, 'fn-b': 2, 'fn-finish': 1 });
  });

  it('in a redrive, replays a succeeded task once: the same task entered again (a loop in a branch) runs', async () => {
    // A branch that polls until told to stop (Poll → Again? → Pause → Poll), beside one that fails while the poll goes on.
    const looping = localMachine('svc-local-loop', {
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel',
          End: true,
          Branches: [
            {
              StartAt: 'Poll',
              States: {
                Poll: { Type: 'Task', Resource: 'fn-poll', Next: 'Again?' },
                'Again?': { Type: 'Choice', Choices: [{ Variable: '$.again', BooleanEquals: true, Next: 'Pause' }], Default: 'Done' },
                Pause: { Type: 'Wait', Seconds: 0, Next: 'Poll' },
                Done: { Type: 'Succeed' },
              },
            },
            { StartAt: 'B', States: { B: { Type: 'Task', Resource: 'fn-b', End: true } } },
          ],
        },
      },
    });
    let polling = true;
    let polls = 0;
    const invoke: Invoke = async (name): Promise<InvokeOutcome> => {
      if (name === 'fn-poll') {
        polls++;
        return { ok: true, payload: { again: polling } };
      }
      if (polling) {
        while (polls < 3) await new Promise((r) => setTimeout(r, 5));
        return { ok: false, errorType: 'VendorUnavailable', errorMessage: 'down' };
      }
      return { ok: true, payload: {} };
    };
    const { engine, client } = await serve(invoke, undefined, [looping]);
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: looping.arn, name: 'loop-redriven' }));
    await engine.idle();
    expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('FAILED');
    polling = false;
    const before = polls;
    await client.send(new RedriveExecutionCommand({ executionArn }));
    // Replayed for ever, the poll's last answer ("again") would never let the redrive end.
    await Promise.race([engine.idle(), new Promise((r) => setTimeout(r, 5000))]);
    expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED');
    expect(polls).toBe(before + 1);
  });

  it('resumes at a failed top-level task with the input it had, running nothing before it again', async () => {
    let finishFails = true;
    const seenByFinish: unknown[] = [];
    const { invoke, calls } = fakeLambdas({});
    const wrapped: Invoke = async (name, payload) => {
      if (name === 'fn-finish') {
        seenByFinish.push(payload);
        calls['fn-finish'] = (calls['fn-finish'] ?? 0) + 1;
        if (finishFails) return { ok: false, errorType: 'VendorRejected', errorMessage: 'no' };
        return { ok: true, payload: { finished: true } };
      }
      return invoke(name, payload);
    };
    const { engine, client } = await serve(wrapped);
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'resume-task', input: '{"n":7}' }));
    await engine.idle();
    expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('FAILED');
    finishFails = false;
    await client.send(new RedriveExecutionCommand({ executionArn }));
    await engine.idle();
    expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED');
    expect(calls).toEqual({ 'fn-prepare': 1, 'fn-a': 1, 'fn-b': 1, 'fn-finish': 2 });
    expect(seenByFinish[1]).toEqual(seenByFinish[0]);
    expect(seenByFinish[0]).toMatchObject({ n: 7, prepared: { from: 'fn-prepare' } });
  });

  it('lists executions newest first, filtered by status, and stops a running one', async () => {
    const gate = new Promise<void>(() => {});
    const { engine, client } = await serve(async (name) => {
      if (name === 'fn-prepare') await gate;
      return { ok: true, payload: {} };
    });
    await client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'older' }));
    await new Promise((r) => setTimeout(r, 5));
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'newer' }));
    const running = await client.send(new ListExecutionsCommand({ stateMachineArn: ARN, statusFilter: 'RUNNING' }));
    expect(running.executions!.map((e) => e.name)).toEqual(['newer', 'older']);

    await client.send(new StopExecutionCommand({ executionArn, error: 'Operator', cause: 'testing' }));
    const stopped = await client.send(new DescribeExecutionCommand({ executionArn }));
    expect(stopped.status).toBe('ABORTED');
    expect(stopped.redriveStatus).toBe('REDRIVABLE');
    engine.shutdown();
  });

  it('after a restart, marks executions that were running as ABORTED so a redrive can finish them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sfn-'));
    dirs.push(dir);
    const first = await serve(async () => new Promise(() => {}), dir);
    const { executionArn } = await first.client.send(new StartExecutionCommand({ stateMachineArn: ARN, name: 'interrupted' }));
    first.engine.shutdown();

    const { invoke, calls } = fakeLambdas({});
    const second = await serve(invoke, dir);
    const recovered = await second.client.send(new DescribeExecutionCommand({ executionArn }));
    expect(recovered.status).toBe('ABORTED');
    await second.client.send(new RedriveExecutionCommand({ executionArn }));
    await second.engine.idle();
    expect((await second.client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED');
    expect(calls['fn-finish']).toBe(1);
  });

  describe('a run that has ended, or a task past its TimeoutSeconds', () => {
    const retrying = localMachine(
      'svc-local-demo-retrying',
      bothOf({
        Fails: { Resource: 'fn-fails' },
        Busy: { Resource: 'fn-busy', Retry: [{ ErrorEquals: ['Busy'], IntervalSeconds: 60, MaxAttempts: 5 }] },
      }),
    );
    const slow = localMachine('svc-local-demo-slow', {
      StartAt: 'Slow',
      States: {
        Slow: { Type: 'Task', Resource: 'fn-slow', TimeoutSeconds: 1, Retry: [{ ErrorEquals: ['States.Timeout'], IntervalSeconds: 1, MaxAttempts: 1 }], End: true },
      },
    });
    const slowInParallel = localMachine('svc-local-demo-slow-parallel', bothOf({ Quick: { Resource: 'fn-quick' }, Slow: { Resource: 'fn-slow', TimeoutSeconds: 1 } }));
    const busy = () => {
      throw Object.assign(new Error('try later'), { name: 'Busy' });
    };
    const historyOf = async (client: SFNClient, executionArn: string | undefined) => (await client.send(new GetExecutionHistoryCommand({ executionArn }))).events!;

    // AWS: when one branch of a Parallel fails, the whole state fails and the other branches are stopped
    // (Step Functions developer guide, "Parallel workflow state", error handling); a stopped or finished
    // execution schedules no more tasks and records nothing after its last event.
    it("gives up a branch's waiting retries when a sibling fails the run, instead of firing them all at once", async () => {
      const { invoke, calls } = fakeLambdas({ 'fn-busy': busy });
      const failing: Invoke = async (name, payload) => {
        if (name === 'fn-fails') await new Promise((r) => setTimeout(r, 100));
        return name === 'fn-fails' ? { ok: false, errorType: 'VendorRejected', errorMessage: 'no' } : invoke(name, payload);
      };
      const { engine, client } = await serve(failing, undefined, [retrying]);
      const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: retrying.arn, name: 'sibling-fails' }));
      await engine.idle();
      await new Promise((r) => setTimeout(r, 200));
      expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('FAILED');
      expect(calls['fn-busy']).toBe(1);
      expect((await historyOf(client, executionArn)).at(-1)!.type).toBe('ExecutionFailed');
    });

    it('gives up waiting retries when the execution is stopped', async () => {
      const { invoke, calls } = fakeLambdas({ 'fn-busy': busy, 'fn-fails': () => new Promise(() => {}) });
      const { engine, client } = await serve(invoke, undefined, [retrying]);
      const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: retrying.arn, name: 'stopped' }));
      while (!calls['fn-busy']) await new Promise((r) => setTimeout(r, 10));
      await client.send(new StopExecutionCommand({ executionArn }));
      await new Promise((r) => setTimeout(r, 200));
      expect(calls['fn-busy']).toBe(1);
      expect((await historyOf(client, executionArn)).at(-1)!.type).toBe('ExecutionAborted');
      engine.shutdown();
    });

    // AWS records a task past its TimeoutSeconds as LambdaFunctionTimedOut (States.Timeout) and discards the
    // Lambda's late answer (API reference: HistoryEvent, LambdaFunctionTimedOutEventDetails).
    it('records LambdaFunctionTimedOut for a task past its TimeoutSeconds and discards its late answer', async () => {
      let call = 0;
      const { engine, client } = await serve(
        async () => {
          call += 1;
          if (call === 1) await new Promise((r) => setTimeout(r, 1500));
          return { ok: true, payload: { call } };
        },
        undefined,
        [slow],
      );
      const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: slow.arn, name: 'timed-out' }));
      await engine.idle();
      await new Promise((r) => setTimeout(r, 200));
      const described = await client.send(new DescribeExecutionCommand({ executionArn }));
      expect(described.status).toBe('SUCCEEDED');
      expect(JSON.parse(described.output!)).toEqual({ call: 2 });
      const events = await historyOf(client, executionArn);
      const types = events.map((e) => e.type!);
      expect(types.filter((t) => t.startsWith('LambdaFunction') && t !== 'LambdaFunctionScheduled' && t !== 'LambdaFunctionStarted')).toEqual([
        'LambdaFunctionTimedOut',
        'LambdaFunctionSucceeded',
      ]);
      expect(events.find((e) => e.type === 'LambdaFunctionTimedOut')!.lambdaFunctionTimedOutEventDetails).toMatchObject({ error: 'States.Timeout' });
      expect(types.at(-1)).toBe('ExecutionSucceeded');
    });
    it('records the timeout that ends the run before the run ends', async () => {
      const { engine, client } = await serve(
        async (name) => {
          if (name === 'fn-slow') await new Promise((r) => setTimeout(r, 3000));
          return { ok: true, payload: {} };
        },
        undefined,
        [slowInParallel],
      );
      const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: slowInParallel.arn, name: 'timeout-ends-it' }));
      await engine.idle();
      const described = await client.send(new DescribeExecutionCommand({ executionArn }));
      expect([described.status, described.error]).toEqual(['FAILED', 'States.Timeout']);
      const types = (await historyOf(client, executionArn)).map((e) => e.type!);
      expect(types.indexOf('LambdaFunctionTimedOut')).toBeGreaterThan(-1);
      expect(types.indexOf('LambdaFunctionTimedOut')).toBeLessThan(types.indexOf('ExecutionFailed'));
      expect(types.at(-1)).toBe('ExecutionFailed');
    });

    it("writes nothing of a finished run into the history of the redrive that follows it, a late timeout included", async () => {
      let quickFails = true;
      const { engine, client } = await serve(
        async (name): Promise<InvokeOutcome> => {
          // The redrive is still going (its Quick takes 1.5 s) when the first run's Slow passes its 1 s.
          if (name === 'fn-quick' && quickFails) await new Promise((r) => setTimeout(r, 100));
          if (name === 'fn-quick' && quickFails) return { ok: false, errorType: 'VendorRejected', errorMessage: 'no' };
          if (name === 'fn-quick') await new Promise((r) => setTimeout(r, 1500));
          if (name === 'fn-quick') return { ok: true, payload: {} };
          if (!quickFails) return { ok: true, payload: {} };
          await new Promise((r) => setTimeout(r, 3000));
          return { ok: true, payload: { late: true } };
        },
        undefined,
        [slowInParallel],
      );
      const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: slowInParallel.arn, name: 'then-redriven' }));
      await engine.idle();
      expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('FAILED');
      const firstRun = (await historyOf(client, executionArn)).length;
      quickFails = false;
      await client.send(new RedriveExecutionCommand({ executionArn }));
      await engine.idle();
      const events = await historyOf(client, executionArn);
      expect(events.slice(firstRun).map((e) => e.type)).not.toContain('LambdaFunctionTimedOut');
      expect(events.at(-1)!.type).toBe('ExecutionSucceeded');
    });
  });
});
