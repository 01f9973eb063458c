// What tells an operator on AWS that something needs them, as the packaged
// template holds it (infra/operations.yml, infra/alarms.cjs): an alarm per
// state machine and metric, per function for throttles and per HTTP function
// for errors, one on follow-ups, all notifying one topic that an e-mail
// address may subscribe to; log retention on every log group; X-Ray behind
// one switch. The packaged template is the default one (no settings); the
// switches are read with `sls print`, which resolves the same configuration.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { serviceFunctions } from '../../infra/functions.ts';
import { FOLLOW_UPS_RECORDED } from '../../lib/provisioning/follow-ups.ts';
import { functionLogicalId, hermetic, SLS_BIN } from '../../local/serverless-config.ts';
import { packaged, type Template } from '../support/packaged.ts';
import { stateMachines } from '../../statemachines/cloudformation.ts';

const run = promisify(execFile);
const { operationsSettings } = createRequire(import.meta.url)('../../infra/operations.cjs') as {
  operationsSettings: (raw: Record<string, string>) => { logRetentionInDays: number; tracing: boolean; alarmEmail: string };
};

const declared = { functions: serviceFunctions() };
const httpFunctions = Object.entries(declared.functions).filter(([, fn]) => (fn.events ?? []).some((e) => e.httpApi)).map(([key]) => key);

let template: Template;
beforeAll(async () => {
  ({ template } = await packaged());
}, 360_000);

const ofType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
const alarms = () => ofType(template, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
const dimension = (alarm: Record<string, any>, name: string) => alarm.Dimensions.find((d: { Name: string }) => d.Name === name)?.Value;

/** A condition of literals, as CloudFormation evaluates it (Fn::Equals, Fn::Not). */
function holds(condition: any): boolean {
  if (condition['Fn::Not']) return !holds(condition['Fn::Not'][0]);
  if (condition['Fn::Equals']) return String(condition['Fn::Equals'][0]) === String(condition['Fn::Equals'][1]);
  throw new Error(`not a condition of literals: ${JSON.stringify(condition)}`);
}

describe('the alarms of the packaged template', () => {
  it('watch every state machine for failed, timed-out and aborted executions', () => {
    const machines = ofType(template, 'AWS::StepFunctions::StateMachine').map(([, m]) => String(m.Properties.StateMachineName));
    expect(machines).toHaveLength(Object.keys(stateMachines).length);
    for (const name of machines) {
      const watching = alarms().filter((a) => a.Namespace === 'AWS/States' && JSON.stringify(dimension(a, 'StateMachineArn')).endsWith(`:stateMachine:${name}"}`));
      expect(watching.map((a) => a.MetricName).sort(), name).toEqual(['ExecutionsAborted', 'ExecutionsFailed', 'ExecutionsTimedOut']);
      for (const a of watching) expect(a).toMatchObject({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
    }
  });

  it("watch every function's throttles, and every HTTP function's errors", () => {
    const functions = ofType(template, 'AWS::Lambda::Function').map(([id]) => id);
    expect(functions).toHaveLength(Object.keys(declared.functions).length);
    const watching = (metric: string) =>
      alarms()
        .filter((a) => a.Namespace === 'AWS/Lambda' && a.MetricName === metric)
        .map((a) => dimension(a, 'FunctionName').Ref)
        .sort();
    expect(watching('Throttles')).toEqual([...functions].sort());
    expect(httpFunctions.length).toBeGreaterThan(30);
    expect(watching('Errors')).toEqual(httpFunctions.map(functionLogicalId).sort());
    // The steps throw on purpose (Retry, Catch, AwaitingRedrive): their machines' alarms speak for them.
    expect(watching('Errors')).not.toContain(functionLogicalId('assign-slug'));
  });

  it('watch the follow-ups the service records, by the metric it writes and this stage', () => {
    const followUps = alarms().filter((a) => a.MetricName === FOLLOW_UPS_RECORDED);
    expect(followUps).toHaveLength(1);
    expect(followUps[0]).toMatchObject({ Namespace: 'agency-backend', Dimensions: [{ Name: 'Stage', Value: 'ci' }], Statistic: 'Sum', Threshold: 1 });
  });

  it('all notify the alarm topic, and each has a name of its own that says what it watches', () => {
    const topics = ofType(template, 'AWS::SNS::Topic');
    expect(topics.map(([id, t]) => [id, t.Properties.TopicName])).toEqual([['AlarmTopic', 'agency-backend-ci-alarms']]);
    const all = alarms();
    expect(all.length).toBe(Object.keys(stateMachines).length * 3 + Object.keys(declared.functions).length + httpFunctions.length + 1);
    for (const a of all) expect(a.AlarmActions, a.AlarmName).toEqual([{ Ref: 'AlarmTopic' }]);
    expect(new Set(all.map((a) => a.AlarmName)).size).toBe(all.length);
    for (const a of all) expect(a.AlarmName).toMatch(/^agency-backend-ci-[a-z0-9-]+$/);
    // CloudWatch may publish to the topic; only from this account.
    const [[, policy]] = ofType(template, 'AWS::SNS::TopicPolicy') as [[string, any]];
    expect(policy.Properties.PolicyDocument.Statement).toEqual([expect.objectContaining({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish', Resource: { Ref: 'AlarmTopic' } })]);
  });

  it('subscribe an e-mail address to the topic only when one is set', () => {
    const subscriptions = ofType(template, 'AWS::SNS::Subscription');
    expect(subscriptions).toHaveLength(1);
    const [, subscription] = subscriptions[0]!;
    expect(subscription).toMatchObject({ Condition: 'AlarmEmailGiven', Properties: { Protocol: 'email', TopicArn: { Ref: 'AlarmTopic' } } });
    expect(holds(template.Conditions!.AlarmEmailGiven)).toBe(false);
  });

  it('leave CloudFormation room: a stack holds at most 500 resources', () => {
    expect(Object.keys(template.Resources).length).toBeLessThan(500);
    // Nothing invokes a version (serverless.yml versionFunctions): none is published, none counts.
    expect(Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Version')).toEqual([]);
  });
});

describe('logs and tracing in the packaged template', () => {
  it('keeps every log group 30 days, and every function logs to a group of the template', () => {
    const groups = ofType(template, 'AWS::Logs::LogGroup').map(([, g]) => g.Properties);
    for (const g of groups) expect(g.RetentionInDays, g.LogGroupName).toBe(30);
    const names = new Set(groups.map((g) => g.LogGroupName));
    for (const [id, fn] of ofType(template, 'AWS::Lambda::Function')) expect(names.has(`/aws/lambda/${fn.Properties.FunctionName}`), id).toBe(true);
  });

  it('traces nothing unless told to: no function or state machine sends to X-Ray, nor may', () => {
    for (const [id, fn] of ofType(template, 'AWS::Lambda::Function')) expect(fn.Properties.TracingConfig, id).toBeUndefined();
    for (const [id, m] of ofType(template, 'AWS::StepFunctions::StateMachine')) expect(m.Properties.TracingConfiguration, id).toEqual({ Enabled: false });
    for (const [id, role] of ofType(template, 'AWS::IAM::Role')) expect(JSON.stringify(role), id).not.toContain('xray:');
    expect(template.Resources.StateMachineTracingPolicy!.Condition).toBe('TracingOn');
    expect(holds(template.Conditions!.TracingOn)).toBe(false);
  });
});

describe('the deploy-time settings', () => {
  const print = async (settings: Record<string, string>) => {
    const { stdout } = await run(process.execPath, [SLS_BIN, 'print', '--stage', 'ci', '--format', 'json'], {
      env: { ...hermetic(process.env, settings), SLS_TELEMETRY_DISABLED: '1' },
      maxBuffer: 32 * 1024 * 1024,
    });
    const printed = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const parts = [printed.resources].flat() as Partial<Template>[];
    return {
      provider: printed.provider,
      Resources: Object.assign({}, ...parts.map((p) => p.Resources ?? {})) as Template['Resources'],
      Conditions: Object.assign({}, ...parts.map((p) => p.Conditions ?? {})),
    };
  };

  it('subscribe the address, keep logs as long as asked, and switch X-Ray on for every function and state machine', async () => {
    const svc = await print({ ALARM_EMAIL: 'ops@example.com', LOG_RETENTION_DAYS: '90', XRAY_TRACING: 'true' });
    expect(holds(svc.Conditions.AlarmEmailGiven)).toBe(true);
    expect(svc.Resources.AlarmEmailSubscription!.Properties.Endpoint).toBe('ops@example.com');
    // Serverless gives every function's log group the provider's retention, and TracingConfig Active with X-Ray's permissions.
    expect(svc.provider.logRetentionInDays).toBe(90);
    expect(svc.provider.tracing).toEqual({ lambda: true });
    expect(holds(svc.Conditions.TracingOn)).toBe(true);
    const machines = Object.values(svc.Resources).filter((r) => r.Type === 'AWS::StepFunctions::StateMachine');
    expect(machines).toHaveLength(Object.keys(stateMachines).length);
    const policy = svc.Resources.StateMachineTracingPolicy!.Properties;
    for (const m of machines) {
      expect(m.Properties.TracingConfiguration).toEqual({ Enabled: true });
      expect(policy.Roles).toContainEqual({ Ref: m.Properties.RoleArn['Fn::GetAtt'][0] });
    }
    expect(policy.PolicyDocument.Statement.flatMap((s: { Action: string[] }) => s.Action).every((a: string) => a.startsWith('xray:'))).toBe(true);
  }, 120_000);

  it('stop a deployment with a wrong value, naming the setting', async () => {
    const failure: { stdout?: string; stderr?: string } = await print({ LOG_RETENTION_DAYS: '31' }).then(() => ({}), (e) => e);
    expect(`${failure.stdout}${failure.stderr}`).toMatch(/LOG_RETENTION_DAYS must be one of 1, 3, 5, 7, 14, 30, 60, 90/);
    expect(() => operationsSettings({ tracing: 'yes' })).toThrow(/XRAY_TRACING must be true or false/);
    expect(() => operationsSettings({ alarmEmail: 'a@example.com,b@example.com' })).toThrow(/ALARM_EMAIL must be one e-mail address/);
    expect(operationsSettings({ alarmEmail: ' ', logRetentionDays: '', tracing: '' })).toMatchObject({ logRetentionInDays: 30, tracing: false, alarmEmail: '' });
    expect(operationsSettings({ logRetentionDays: '365', tracing: '1' })).toMatchObject({ logRetentionInDays: 365, tracing: true });
  }, 120_000);
});
