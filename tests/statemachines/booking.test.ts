// The booking ASL (statemachines/booking.ts): valid, wired to the functions CloudFormation substitutes,
// and behaving as designed when run by the local engine with fake steps.
import validator from 'asl-validator';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serviceFunctions } from '../../infra/functions.ts';
import { collectStates, StepFunctionsEngine, type Invoke, type MachineDefinition } from '../../local/stepfunctions/engine.ts';
import { functionLogicalId } from '../../local/serverless-config.ts';
import { stateMachines, templates } from '../../statemachines/cloudformation.ts';

const text = JSON.stringify(stateMachines.booking);
const asl = JSON.parse(text);
const infra = parse(readFileSync('infra/webhooks.yml', 'utf8'), { logLevel: 'silent' }) as {
  Resources: { BookingStateMachine: { Properties: { StateMachineName: string } } };
};
const machineProps = { ...infra.Resources.BookingStateMachine.Properties, DefinitionSubstitutions: templates.booking.substitutions };
const yml = parse(readFileSync('serverless.yml', 'utf8'), { logLevel: 'silent' }) as { params: Record<string, Record<string, unknown>> };

describe('the booking state machine definition', () => {
  it('is valid ASL', () => {
    const { isValid, errors } = validator(asl);
    expect(errors).toEqual([]);
    expect(isValid).toBe(true);
  });

  it('substitutes exactly its placeholders, each with a declared function', () => {
    const placeholders = new Set([...text.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]));
    expect(new Set(Object.keys(machineProps.DefinitionSubstitutions))).toEqual(placeholders);
    const logicalIds = new Set(Object.keys(serviceFunctions()).map(functionLogicalId));
    for (const value of Object.values(machineProps.DefinitionSubstitutions)) expect(logicalIds).toContain(value['Fn::GetAtt'][0]);
  });

  it('is the machine the booking webhook is told to start, on AWS and locally', () => {
    expect(machineProps.StateMachineName).toBe('${self:service}-${sls:stage}-booking');
    expect(JSON.stringify(yml.params.default!.bookingStateMachineArn)).toContain(':stateMachine:${self:service}-${sls:stage}-booking');
    expect(yml.params.local!.bookingStateMachineArn).toMatch(/:stateMachine:\$\{self:service\}-local-booking$/);
  });

  it('retries transient vendor errors in every task, and waits out a busy booking and a missing onboarding list', () => {
    for (const branch of asl.States.ActOnBooking.Branches) {
      for (const [, state] of collectStates(branch, 'Task')) {
        expect((state.Retry as { ErrorEquals: string[] }[]).flatMap((r) => r.ErrorEquals)).toEqual(expect.arrayContaining(['VendorUnavailable', 'States.Timeout']));
        expect(state.Catch).toBeUndefined();
      }
    }
    const task = asl.States.ActOnBooking.Branches[0].States.RecordBookingTask;
    expect(task.Retry.flatMap((r: { ErrorEquals: string[] }) => r.ErrorEquals)).toEqual(expect.arrayContaining(['BookingTaskBusy', 'OnboardingListMissing']));
  });
});

// --- behaviour, through the local engine with fake steps -------------------------------------

const machine: MachineDefinition = {
  arn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:test-booking',
  name: 'test-booking',
  roleArn: 'arn:aws:iam::000000000000:role/r',
  creationDate: Date.now(),
  functionArns: {},
  definition: JSON.parse(text.replace(/\$\{(\w+)Arn\}/g, '$1')),
};

function steps(failing: Set<string>) {
  const calls: { fn: string; input: Record<string, unknown> }[] = [];
  const invoke: Invoke = async (fn, payload) => {
    calls.push({ fn, input: payload as Record<string, unknown> });
    if (failing.has(fn)) return { ok: false, errorType: 'VendorRejected', errorMessage: `${fn} refused` };
    return { ok: true, payload: { step: fn === 'RecordBookingTask' ? 'task' : 'alert', outcome: 'created', detail: 'x' } };
  };
  return { invoke, calls };
}

const input = { accountId: 'acct', eventKey: 'booking#acct#calcom#BOOKING_CREATED|uid', booking: { provider: 'calcom', bookingId: 'uid' } };

describe('the booking state machine at work', () => {
  it('runs the task and the alert with the job and the execution name, and succeeds', async () => {
    const { invoke, calls } = steps(new Set());
    const engine = new StepFunctionsEngine([machine], invoke);
    const { executionArn } = engine.startExecution(machine.arn, 'booking-abc', JSON.stringify(input));
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls.map((c) => c.fn).sort()).toEqual(['PostBookingAlert', 'RecordBookingTask']);
    for (const call of calls) expect(call.input).toEqual({ ...input, execution: 'booking-abc' });
    expect(JSON.parse(engine.describeExecution(executionArn).output!).results).toEqual([
      { step: 'task', outcome: 'created' },
      { step: 'alert', outcome: 'created' },
    ]);
  });

  it('still writes the task when the alert keeps failing, stays FAILED for an operator, and a redrive posts only the alert', async () => {
    const failing = new Set(['PostBookingAlert']);
    const { invoke, calls } = steps(failing);
    const engine = new StepFunctionsEngine([machine], invoke);
    const { executionArn } = engine.startExecution(machine.arn, 'booking-def', JSON.stringify(input));
    await engine.idle();
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: 'VendorRejected' });
    expect(calls.map((c) => c.fn)).toContain('RecordBookingTask');

    failing.clear();
    calls.length = 0;
    engine.redriveExecution(executionArn);
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls.map((c) => c.fn)).toEqual(['PostBookingAlert']);
  });
});
