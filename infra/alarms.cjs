// The CloudWatch alarms of every state machine and every function, generated
// at package time so that a machine or function added later gets its alarms
// without anyone writing them (serverless.yml resources: ${file(./infra/alarms.cjs)}).
// Each notifies the alarm topic of infra/operations.yml; docs/operations.md
// says what each means and what to do when it fires.
//
// - Each state machine (statemachines/cloudformation.ts, deployed as
//   <service>-<stage>-<machine>): ExecutionsFailed, ExecutionsTimedOut and
//   ExecutionsAborted, any in five minutes.
// - Each function's Throttles, any in five minutes; and each HTTP function's
//   Errors. Per function rather than account-wide: an account's AWS/Lambda
//   figures count every stage and every other stack in it (a dev stage's
//   errors would wake prod's operators), and the alarm then names the
//   function whose logs to read. The steps of the state machines get no
//   Errors alarm: they throw on purpose for the machines' Retry and Catch (a
//   vendor down, a throttle, AwaitingRedrive on a held run), so their Errors
//   count designed failures; what an operator must act on shows as an
//   execution that failed, timed out or was aborted, and as a follow-up. An
//   HTTP function answers its failures itself (the middy stack turns errors
//   into JSON answers), so its Errors are only what it could not answer: a
//   crash, a timeout, a cold start that failed on a setting.
const PERIOD_SECONDS = 300;

/** 'enhanced-onboarding' → 'EnhancedOnboarding'. */
const pascal = (name) => name.split(/[-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

/** Any occurrence of the metric in five minutes; no data (nothing happened) is fine. */
const alarm = ({ name, description, namespace, metric, dimensions }) => ({
  Type: 'AWS::CloudWatch::Alarm',
  Properties: {
    AlarmName: name,
    AlarmDescription: description,
    Namespace: namespace,
    MetricName: metric,
    Dimensions: dimensions,
    Statistic: 'Sum',
    Period: PERIOD_SECONDS,
    EvaluationPeriods: 1,
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    TreatMissingData: 'notBreaching',
    AlarmActions: [{ Ref: 'AlarmTopic' }],
  },
});

const MACHINE_METRICS = {
  ExecutionsFailed: { suffix: 'executions-failed', means: 'an execution ended FAILED (an onboarding held for redrive among them)' },
  ExecutionsTimedOut: { suffix: 'executions-timed-out', means: 'an execution ran past its timeout' },
  ExecutionsAborted: { suffix: 'executions-aborted', means: 'an execution was stopped before it finished' },
};

const FUNCTION_METRICS = {
  Errors: { suffix: 'errors', means: 'an invocation crashed, timed out or failed to start' },
  Throttles: { suffix: 'throttles', means: 'Lambda refused an invocation: no concurrency left' },
};

/**
 * @param {{ service: string, stage: string, machines: string[], functions: Record<string, { events?: unknown[] }>,
 *   functionLogicalId: (key: string) => string }} input
 */
function alarmResources({ service, stage, machines, functions, functionLogicalId }) {
  const resources = {};
  const runbook = 'See docs/operations.md, "Alarms".';
  for (const machine of machines) {
    const stateMachineName = `${service}-${stage}-${machine}`;
    const arn = { 'Fn::Sub': `arn:\${AWS::Partition}:states:\${AWS::Region}:\${AWS::AccountId}:stateMachine:${stateMachineName}` };
    for (const [metric, { suffix, means }] of Object.entries(MACHINE_METRICS)) {
      resources[`${pascal(machine)}${metric}Alarm`] = alarm({
        name: `${stateMachineName}-${suffix}`,
        description: `${stateMachineName}: ${means}. ${runbook}`,
        namespace: 'AWS/States',
        metric,
        dimensions: [{ Name: 'StateMachineArn', Value: arn }],
      });
    }
  }
  for (const [key, fn] of Object.entries(functions)) {
    const isHttp = (fn.events ?? []).some((event) => event && typeof event === 'object' && 'httpApi' in event);
    const logicalId = functionLogicalId(key);
    for (const [metric, { suffix, means }] of Object.entries(FUNCTION_METRICS)) {
      if (metric === 'Errors' && !isHttp) continue;
      resources[`${logicalId.replace(/LambdaFunction$/, '')}${metric}Alarm`] = alarm({
        name: `${service}-${stage}-${key}-${suffix}`,
        description: `${service}-${stage}-${key}: ${means}. ${runbook}`,
        namespace: 'AWS/Lambda',
        metric,
        dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId } }],
      });
    }
  }
  return resources;
}

module.exports = async ({ resolveConfigurationProperty, resolveVariable }) => {
  let cloudformation;
  try {
    cloudformation = await import('../statemachines/cloudformation.ts');
  } catch (error) {
    if (error && error.code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new Error(`The alarms are built from TypeScript modules, which need Node 24 (this is ${process.version}): run serverless through npx or npm`);
    }
    throw error;
  }
  const [service, stage, functions] = await Promise.all([
    resolveConfigurationProperty(['service']),
    resolveVariable('sls:stage'),
    resolveConfigurationProperty(['functions']),
  ]);
  return {
    Resources: alarmResources({
      service,
      stage,
      machines: Object.keys(cloudformation.stateMachines),
      // serverless.yml lists its functions as the generated ones (infra/functions.ts) and its own.
      functions: Object.assign({}, ...[functions ?? {}].flat()),
      functionLogicalId: cloudformation.functionLogicalId,
    }),
  };
};
module.exports.alarmResources = alarmResources;
