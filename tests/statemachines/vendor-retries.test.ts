// Every vendor step of every state machine retries a throttled vendor
// (VendorThrottled) on a schedule of its own, long enough for a rate-limit
// window that reopens a minute later (ClickUp's X-RateLimit-Reset, Close's
// rate_reset), and the engine applies it before the generic retry and the Catch.
import validator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import { collectStates, StepFunctionsEngine, type Invoke, type InvokeOutcome, type MachineDefinition } from '../../local/stepfunctions/engine.ts';
import { stateMachines } from '../../statemachines/cloudformation.ts';

type Retrier = { ErrorEquals: string[]; IntervalSeconds?: number; BackoffRate?: number; MaxAttempts?: number; MaxDelaySeconds?: number; JitterStrategy?: string };
type State = { Type: string; Retry?: Retrier[] };


/** Every Task of a machine, branches and iterators included. */
function tasksOf(asl: { States: Record<string, unknown> }): [string, State][] {
  return collectStates(asl as never, 'Task') as [string, State][];
}

/** The ceilings of a retrier's waits, in seconds, as AWS computes them (before jitter). */
function ceilings(r: Retrier) {
  return Array.from({ length: r.MaxAttempts ?? 3 }, (_, i) =>
    Math.min(r.MaxDelaySeconds ?? Infinity, (r.IntervalSeconds ?? 1) * (r.BackoffRate ?? 2) ** i),
  );
}

const retriesVendors = (machine: object) => tasksOf(machine as never).some(([, s]) => s.Retry?.some((r) => r.ErrorEquals.includes('VendorUnavailable')));

describe.each(Object.entries(stateMachines))('%s', (_, machine) => {
  const asl = JSON.parse(JSON.stringify(machine));

  it('is valid ASL', () => {
    expect(validator(asl).errors).toEqual([]);
  });
});

// The machines whose steps call vendors (the batch machine's only starts runs).
describe.each(Object.entries(stateMachines).filter(([, machine]) => retriesVendors(machine)))('%s', (_, machine) => {
  const asl = JSON.parse(JSON.stringify(machine));

  it('gives every step that retries VendorUnavailable its own VendorThrottled retry, no shorter', () => {
    const vendorSteps = tasksOf(asl).filter(([, s]) => s.Retry?.some((r) => r.ErrorEquals.includes('VendorUnavailable')));
    expect(vendorSteps.length).toBeGreaterThan(0);
    for (const [name, state] of vendorSteps) {
      const retry = state.Retry!;
      const at = retry.findIndex((r) => r.ErrorEquals.includes('VendorThrottled'));
      expect(at, name).toBeGreaterThanOrEqual(0);
      const throttled = retry[at]!;
      expect(throttled.ErrorEquals, name).toEqual(['VendorThrottled']);
      // A States.ALL retrier must be the last one (AWS refuses the definition otherwise).
      const all = retry.findIndex((r) => r.ErrorEquals.includes('States.ALL'));
      if (all >= 0) expect(all, name).toBe(retry.length - 1);
      // With full jitter each wait is uniform below its ceiling: half the ceilings is the expected total,
      // which must outlast a window that reopens 60 s later; without jitter the ceilings themselves must.
      const total = ceilings(throttled).reduce((a, b) => a + b, 0);
      expect(throttled.JitterStrategy === 'FULL' ? total / 2 : total, name).toBeGreaterThanOrEqual(60);
      const generic = retry.find((r) => r.ErrorEquals.includes('VendorUnavailable'))!;
      expect(total, name).toBeGreaterThanOrEqual(ceilings(generic).reduce((a, b) => a + b, 0));
    }
  });
});

it('covers the machines whose steps call vendors', () => {
  expect(Object.keys(stateMachines).filter((name) => retriesVendors(stateMachines[name as keyof typeof stateMachines]))).toEqual(
    expect.arrayContaining(['onboarding', 'enhanced-onboarding', 'booking', 'payments', 'crawler-refresh']),
  );
});

describe('a throttled step, run by the local engine', () => {
  it('is retried by its own schedule past the generic one, and succeeds', async () => {
    // The onboarding machine with every wait shortened to a second, so the schedule runs in seconds.
    const text = JSON.stringify(stateMachines.onboarding).replace(/\$\{(\w+)Arn\}/g, '$1');
    const shortened = JSON.parse(text, (key, value) => (key === 'IntervalSeconds' || key === 'MaxDelaySeconds' ? 1 : key === 'BackoffRate' ? 1 : value));
    const machine: MachineDefinition = {
      arn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:test-throttled',
      name: 'test-throttled',
      roleArn: 'arn:aws:iam::000000000000:role/r',
      creationDate: Date.now(),
      functionArns: {},
      definition: shortened,
    };
    const generic = shortened.States.Provision.Branches[0].States.ProvisionTaskTool.Retry.find((r: Retrier) => r.ErrorEquals.includes('VendorUnavailable'));
    // One more throttle than the generic retrier would absorb.
    let throttles = generic.MaxAttempts + 1;
    const calls: string[] = [];
    let recorded: unknown;
    const invoke: Invoke = async (fn, payload): Promise<InvokeOutcome> => {
      calls.push(fn);
      const input = payload as { branches?: unknown };
      if (fn === 'AssignSlug') return { ok: true, payload: { portalSlug: 'acme', dashboardSlug: 'acme' } };
      if (fn === 'RecordOutcome') {
        recorded = input.branches;
        return { ok: true, payload: { success: true, failed: {} } };
      }
      if (fn === 'ProvisionTaskTool' && throttles-- > 0) return { ok: false, errorType: 'VendorThrottled', errorMessage: 'clickup: was throttled (429)' };
      const integration = ({ ProvisionTaskTool: 'clickup', ProvisionStorageTree: 'dropbox', SendOnboardingEmails: 'resend', PostChatNotices: 'slack', SyncCrmLead: 'close' } as Record<string, string>)[fn]!;
      return { ok: true, payload: { integration, outcome: 'success' } };
    };
    const engine = new StepFunctionsEngine([machine], invoke);
    const { executionArn } = engine.startExecution(machine.arn, 'run-1', JSON.stringify({ accountId: 'a', email: 'a@b.co', runId: 'run-1' }));
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls.filter((c) => c === 'ProvisionTaskTool')).toHaveLength(generic.MaxAttempts + 2);
    expect((recorded as unknown[]).flat()).toContainEqual(expect.objectContaining({ integration: 'clickup', outcome: 'success' }));
  }, 30_000);
});
