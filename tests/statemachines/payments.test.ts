// The payments ASL (statemachines/payments.ts): valid, wired to the function CloudFormation substitutes,
// and behaving as designed when run by the local engine with a fake step.
import validator from 'asl-validator';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serviceFunctions } from '../../infra/functions.ts';
import { StepFunctionsEngine, type Invoke, type MachineDefinition } from '../../local/stepfunctions/engine.ts';
import { functionLogicalId } from '../../local/serverless-config.ts';
import { stateMachines, templates } from '../../statemachines/cloudformation.ts';

const text = JSON.stringify(stateMachines.payments);
const asl = JSON.parse(text);
const infra = parse(readFileSync('infra/webhooks.yml', 'utf8'), { logLevel: 'silent' }) as {
  Resources: { PaymentsStateMachine: { Properties: { StateMachineName: string } } };
};
const machineProps = { ...infra.Resources.PaymentsStateMachine.Properties, DefinitionSubstitutions: templates.payments.substitutions };
const yml = parse(readFileSync('serverless.yml', 'utf8'), { logLevel: 'silent' }) as { params: Record<string, Record<string, unknown>> };

describe('the payments state machine definition', () => {
  it('is valid ASL, substituting exactly its one placeholder with the declared step function', () => {
    const { isValid, errors } = validator(asl);
    expect(errors).toEqual([]);
    expect(isValid).toBe(true);
    expect(Object.keys(machineProps.DefinitionSubstitutions)).toEqual(['ApplyPaymentEventArn']);
    expect(machineProps.DefinitionSubstitutions.ApplyPaymentEventArn!['Fn::GetAtt'][0]).toBe(functionLogicalId('apply-payment-event'));
    expect(serviceFunctions()['apply-payment-event']).toBeDefined();
  });

  it('is the machine the payment webhook is told to start, on AWS and locally', () => {
    expect(machineProps.StateMachineName).toBe('${self:service}-${sls:stage}-payments');
    expect(JSON.stringify(yml.params.default!.paymentsStateMachineArn)).toContain(':stateMachine:${self:service}-${sls:stage}-payments');
    expect(yml.params.local!.paymentsStateMachineArn).toMatch(/:stateMachine:\$\{self:service\}-local-payments$/);
  });

  it('retries a busy billing, a claim still held, a failing vendor and the Lambda service, and catches nothing', () => {
    const task = asl.States.ApplyPaymentEvent;
    expect(task.Retry.flatMap((r: { ErrorEquals: string[] }) => r.ErrorEquals)).toEqual(
      expect.arrayContaining(['BillingBusy', 'DeliveryInProgress', 'VendorThrottled', 'VendorUnavailable', 'States.Timeout']),
    );
    expect(task.Catch).toBeUndefined();
  });
});

// --- behaviour, through the local engine with a fake step -------------------------------------

const machine: MachineDefinition = {
  arn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:test-payments',
  name: 'test-payments',
  roleArn: 'arn:aws:iam::000000000000:role/r',
  creationDate: Date.now(),
  functionArns: {},
  definition: JSON.parse(text.replace(/\$\{(\w+)Arn\}/g, '$1')),
};

const event = { id: 'evt_1', type: 'invoice.paid', created: 1_800_000_000, status: 'active' };

function step(answers: ('busy' | 'refused' | 'applied')[]) {
  const calls: unknown[] = [];
  const invoke: Invoke = async (_fn, payload) => {
    calls.push(payload);
    const answer = answers.shift() ?? 'applied';
    if (answer === 'busy') return { ok: false, errorType: 'BillingBusy', errorMessage: 'busy' };
    if (answer === 'refused') return { ok: false, errorType: 'VendorRejected', errorMessage: 'refused' };
    return { ok: true, payload: { outcome: 'applied' } };
  };
  return { invoke, calls };
}

describe('the payments state machine at work', () => {
  it('applies the event it was given; a busy billing is tried again and then applied', async () => {
    const { invoke, calls } = step(['busy']);
    const engine = new StepFunctionsEngine([machine], invoke);
    const { executionArn } = engine.startExecution(machine.arn, 'payment-abc', JSON.stringify({ event }));
    await engine.idle();
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'SUCCEEDED', output: JSON.stringify({ outcome: 'applied' }) });
    expect(calls).toEqual([{ event }, { event }]);
  });

  it('stays FAILED for an operator when the step is refused, and a redrive applies the event', async () => {
    const { invoke, calls } = step(['refused']);
    const engine = new StepFunctionsEngine([machine], invoke);
    const { executionArn } = engine.startExecution(machine.arn, 'payment-def', JSON.stringify({ event }));
    await engine.idle();
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: 'VendorRejected' });
    engine.redriveExecution(executionArn);
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls).toHaveLength(2);
  });
});
