// The onboarding ASL (built from the registry): valid, wired to the functions
// CloudFormation substitutes, and behaving as designed when run by the local
// engine with fake steps.
import validator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import { serviceFunctions } from '../../infra/functions.ts';
import { collectStates, StepFunctionsEngine, type Invoke, type InvokeOutcome, type MachineDefinition } from '../../local/stepfunctions/engine.ts';
import { functionLogicalId } from '../../local/serverless-config.ts';
import { stateMachines, templates } from '../../statemachines/cloudformation.ts';

const text = JSON.stringify(stateMachines.onboarding);
const asl = JSON.parse(text);
const substitutions = templates.onboarding.substitutions;

describe('the onboarding state machine definition', () => {
  it('is valid ASL', () => {
    const { isValid, errors } = validator(asl);
    expect(errors).toEqual([]);
    expect(isValid).toBe(true);
  });

  it('substitutes exactly its placeholders, each with a declared function', () => {
    const placeholders = new Set([...text.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]));
    expect(new Set(Object.keys(substitutions))).toEqual(placeholders);
    const logicalIds = new Set(Object.keys(serviceFunctions()).map(functionLogicalId));
    for (const value of Object.values(substitutions)) expect(logicalIds).toContain(value['Fn::GetAtt'][0]);
  });

  it('catches every integration task of the first pass, and none of the held retries', () => {
    for (const branch of asl.States.Provision.Branches) {
      for (const [, state] of collectStates(branch, 'Task')) expect(state.Catch, JSON.stringify(state.Resource)).toBeDefined();
    }
    for (const branch of asl.States.RetryFailedIntegrations.Branches) {
      for (const [, state] of collectStates(branch, 'Task')) expect(state.Catch).toBeUndefined();
    }
  });
});

// --- behaviour, through the local engine with fake steps -------------------------------------

const machine: MachineDefinition = {
  arn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:test-onboarding',
  name: 'test-onboarding',
  roleArn: 'arn:aws:iam::000000000000:role/r',
  creationDate: Date.now(),
  functionArns: {},
  definition: JSON.parse(text.replace(/\$\{(\w+)Arn\}/g, '$1')),
};

type Input = { hold?: boolean; redriveCount?: number; part?: string; branches?: { integration?: string; outcome?: string; then?: { integration?: string; outcome?: string } }[][] };
const integrationOf: Record<string, string> = {
  ProvisionTaskTool: 'clickup',
  ProvisionStorageTree: 'dropbox',
  SendOnboardingEmails: 'resend',
  PostChatNotices: 'slack',
  SyncCrmLead: 'close',
};

/** Fake step Lambdas: each integration succeeds unless told to fail; the hold behaves as integrationStep's. */
function steps(failing: Set<string>) {
  const calls: string[] = [];
  const invoke: Invoke = async (fn, payload): Promise<InvokeOutcome> => {
    const input = payload as Input;
    calls.push(input.part ? `${fn}:${input.part}` : fn);
    if (fn === 'AssignSlug') return { ok: true, payload: { portalSlug: 'acme', dashboardSlug: 'acme' } };
    if (fn === 'RecordOutcome') {
      const failed = Object.fromEntries(Object.values(integrationOf).map((i) => [i, false]));
      for (const b of (input.branches ?? []).flat()) {
        if (b.outcome === 'failed') failed[b.integration!] = true;
        if (b.then?.outcome === 'failed') failed[b.then.integration!] = true;
      }
      return { ok: true, payload: { success: !Object.values(failed).some(Boolean), failed } };
    }
    const integration = integrationOf[fn]!;
    if (input.hold && !input.redriveCount) return { ok: false, errorType: 'AwaitingRedrive', errorMessage: `${integration} held` };
    if (failing.has(integration)) return { ok: false, errorType: 'VendorRejected', errorMessage: `${integration}: refused` };
    return { ok: true, payload: { integration, outcome: 'success' } };
  };
  return { invoke, calls };
}

async function run(failing: string[]) {
  const broken = new Set(failing);
  const { invoke, calls } = steps(broken);
  const engine = new StepFunctionsEngine([machine], invoke);
  const { executionArn } = engine.startExecution(machine.arn, 'run-1', JSON.stringify({ accountId: 'a', email: 'a@b.co', runId: 'run-1' }));
  await engine.idle();
  return { engine, executionArn, calls, broken };
}

describe('the onboarding state machine at work', () => {
  it('runs every integration once and succeeds', async () => {
    const { engine, executionArn, calls } = await run([]);
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls.sort()).toEqual(
      ['AssignSlug', 'ProvisionTaskTool', 'ProvisionStorageTree', 'SendOnboardingEmails:after-storage', 'SendOnboardingEmails', 'PostChatNotices', 'SyncCrmLead', 'RecordOutcome'].sort(),
    );
  });

  it('lets the other four finish when one fails, records the outcome, then holds the failure for a redrive', async () => {
    const { engine, executionArn, calls, broken } = await run(['dropbox']);
    const failed = engine.describeExecution(executionArn);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toBe('AwaitingRedrive');
    for (const fn of ['ProvisionTaskTool', 'SendOnboardingEmails', 'PostChatNotices', 'SyncCrmLead', 'RecordOutcome']) expect(calls).toContain(fn);
    // The storage-ready e-mail waits for storage.
    expect(calls).not.toContain('SendOnboardingEmails:after-storage');

    broken.clear();
    calls.length = 0;
    engine.redriveExecution(executionArn);
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    // Only storage (and its e-mail) ran again, then the outcome was recorded anew.
    expect(calls).toEqual(['ProvisionStorageTree', 'SendOnboardingEmails:after-storage', 'RecordOutcome']);
  });

  it('fails again, still redrivable, when the held integration fails after a redrive', async () => {
    const { engine, executionArn, calls } = await run(['close']);
    calls.length = 0;
    engine.redriveExecution(executionArn);
    await engine.idle();
    const again = engine.describeExecution(executionArn);
    expect(again).toMatchObject({ status: 'FAILED', error: 'VendorRejected', redriveStatus: 'REDRIVABLE', redriveCount: 1 });
    expect(calls).toEqual(['SyncCrmLead']);
  });
});

describe('a step that answers "waiting" (paced, or the vendor said later)', () => {
  it('waits in a Wait state until the time it named, is given its answer back, and goes on; nothing counts as a failure', async () => {
    const previous: unknown[] = [];
    const waits = { ProvisionTaskTool: 2, 'SendOnboardingEmails:after-storage': 1 } as Record<string, number>;
    let recorded: unknown;
    const invoke: Invoke = async (fn, payload): Promise<InvokeOutcome> => {
      const input = payload as Input & { previous?: unknown };
      const name = input.part ? `${fn}:${input.part}` : fn;
      if (fn === 'AssignSlug') return { ok: true, payload: { portalSlug: 'acme', dashboardSlug: 'acme' } };
      if (fn === 'RecordOutcome') {
        recorded = input.branches;
        return { ok: true, payload: { success: true, failed: {} } };
      }
      const integration = integrationOf[fn]!;
      if (name === 'ProvisionTaskTool') previous.push(input.previous);
      if ((waits[name] ?? 0) > 0) {
        waits[name]! -= 1;
        const until = new Date(Date.now() + 150).toISOString();
        return { ok: true, payload: { integration, ...(input.part ? { part: input.part } : {}), outcome: 'waiting', vendor: integration, until, bookings: [{ key: 'k', used: 1 }] } };
      }
      return { ok: true, payload: { integration, outcome: 'success' } };
    };
    const engine = new StepFunctionsEngine([machine], invoke);
    const { executionArn } = engine.startExecution(machine.arn, 'run-w', JSON.stringify({ accountId: 'a', email: 'a@b.co', runId: 'run-w' }));
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    // First with nothing, then each time with its own waiting answer.
    expect(previous).toEqual([{}, expect.objectContaining({ outcome: 'waiting', bookings: [{ key: 'k', used: 1 }] }), expect.objectContaining({ outcome: 'waiting' })]);
    const waited = engine.getExecutionHistory(executionArn).events.filter((e) => e.type === 'WaitStateEntered').map((e) => (e.stateEnteredEventDetails as { name: string }).name);
    expect(waited.sort()).toEqual(['ProvisionTaskToolWait', 'ProvisionTaskToolWait', 'SendOnboardingEmailsAfterStorageWait']);
    // The branches answer as if nothing had waited.
    expect((recorded as unknown[]).flat()).toEqual(expect.arrayContaining([{ integration: 'clickup', outcome: 'success' }, { integration: 'dropbox', outcome: 'success' }]));
  });
});
