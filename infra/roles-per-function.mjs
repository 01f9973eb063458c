// A Serverless plugin (serverless.yml `plugins`, after serverless-esbuild):
// each function gets an IAM role of its own, which may write to the function's
// own log group, send to X-Ray when tracing is on, and do exactly what the
// code in its bundle declares it does to DynamoDB and Step Functions. No role
// is shared, and serverless.yml grants nothing by hand.
//
// Whatever sends DynamoDB or Step Functions requests declares them, as
// directives (string statements) at the top of the function that builds it:
//   'iam:dynamodb:table/accounts:GetItem,UpdateItem';
//   'iam:dynamodb:table/invitations/index/byEmail:Query';
//   'iam:states:stateMachine/onboarding:StartExecution';
//   'iam:states:execution/onboarding:DescribeExecution,RedriveExecution';
// (tables by their name after TABLE_PREFIX, machines by theirs after
// <service>-<stage>-). esbuild keeps directives through minification, and
// leaves out of a bundle every function its code cannot reach, so a bundle
// holds the declarations of exactly the stores and workflows its function can
// use: read one more table in a function and its role grants it on the next
// package. tests/build/declared-access.test.ts checks that each declaration
// names every request its code sends, and no other.
import { bundleCode } from './settings-per-function.mjs';

/** What a declaration may grant on each kind of resource: IAM's action names, without the service's prefix. */
export const ACTIONS = {
  'dynamodb:table': ['BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'DescribeTable', 'GetItem', 'PutItem', 'Query', 'Scan', 'UpdateItem'],
  'dynamodb:index': ['Query', 'Scan'],
  'states:stateMachine': ['DescribeStateMachine', 'ListExecutions', 'StartExecution', 'StartSyncExecution'],
  'states:execution': ['DescribeExecution', 'GetExecutionHistory', 'RedriveExecution', 'StopExecution'],
};

const RESOURCES = {
  dynamodb: /^table\/(?<table>[\w.-]+)(?:\/index\/(?<index>[\w.-]+))?$/,
  states: /^(?<kind>stateMachine|execution)\/(?<machine>[\w-]+)$/,
};

/**
 * One declaration, e.g. "iam:dynamodb:table/accounts:GetItem,PutItem", as
 * { service, resource, kind, table?, index?, machine?, actions }. A malformed
 * one, or one naming an action its resource does not take, is an error.
 */
export function parseGrant(text) {
  const match = /^iam:(?<service>[a-z]+):(?<resource>[^:]+):(?<actions>[A-Za-z]+(?:,[A-Za-z]+)*)$/.exec(text);
  const service = match?.groups.service;
  const parts = match && RESOURCES[service]?.exec(match.groups.resource);
  if (!parts) {
    throw new Error(`"${text}" is no declaration of access: iam:dynamodb:table/<table>[/index/<index>]:<Action>,... or iam:states:<stateMachine|execution>/<machine>:<Action>,...`);
  }
  const { table, index, machine } = parts.groups;
  const kind = service === 'dynamodb' ? (index ? 'index' : 'table') : parts.groups.kind;
  const actions = match.groups.actions.split(',');
  const unknown = actions.filter((action) => !ACTIONS[`${service}:${kind}`].includes(action));
  if (unknown.length) throw new Error(`"${text}": ${unknown.join(', ')} is not among the actions on a ${service} ${kind}: ${ACTIONS[`${service}:${kind}`].join(', ')}`);
  return { service, resource: match.groups.resource, kind, ...(table ? { table } : {}), ...(index ? { index } : {}), ...(machine ? { machine } : {}), actions };
}

/** Every declaration in a bundle's code, one per resource with the union of its actions, in a stable order. */
export function grantsIn(code) {
  const byResource = new Map();
  for (const [, text] of code.matchAll(/["'`](iam:[^"'`\s]*)["'`]/g)) {
    const grant = parseGrant(text);
    const key = `${grant.service}:${grant.resource}`;
    const actions = new Set([...(byResource.get(key)?.actions ?? []), ...grant.actions]);
    byResource.set(key, { ...grant, actions: [...actions].sort() });
  }
  return [...byResource.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, grant]) => grant);
}

/**
 * What a role's grants can name in this stack, from its resources: the tables
 * named `<prefix><table>` with their indexes, by logical id, and the state
 * machines named `<prefix><machine>`.
 */
export function stackOf(resources, prefix) {
  const tables = new Map();
  const machines = new Set();
  for (const [id, resource] of Object.entries(resources)) {
    const props = resource?.Properties ?? {};
    if (resource?.Type === 'AWS::DynamoDB::Table' && typeof props.TableName === 'string' && props.TableName.startsWith(prefix)) {
      const indexes = [...(props.GlobalSecondaryIndexes ?? []), ...(props.LocalSecondaryIndexes ?? [])].map((i) => i.IndexName);
      tables.set(props.TableName.slice(prefix.length), { id, indexes: new Set(indexes) });
    }
    if (resource?.Type === 'AWS::StepFunctions::StateMachine' && typeof props.StateMachineName === 'string' && props.StateMachineName.startsWith(prefix)) {
      machines.add(props.StateMachineName.slice(prefix.length));
    }
  }
  return { prefix, tables, machines };
}

const ARN = 'arn:${AWS::Partition}';

/**
 * The ARN a grant's statement names in this stack. Tables by Fn::GetAtt;
 * state machines by name, as the functions' settings name them: a Ref would
 * make a machine's steps, and so the machine, depend on it (a cycle).
 */
function resourceOf(grant, stack, where) {
  if (grant.service === 'dynamodb') {
    const table = stack.tables.get(grant.table);
    if (!table) throw new Error(`${where} declares the table "${grant.table}", which is not among the stack's tables (${[...stack.tables.keys()].join(', ')})`);
    if (!grant.index) return { 'Fn::GetAtt': [table.id, 'Arn'] };
    if (!table.indexes.has(grant.index)) throw new Error(`${where} declares the index "${grant.index}" of the table "${grant.table}", which has ${[...table.indexes].join(', ') || 'none'}`);
    return { 'Fn::Sub': `\${${table.id}.Arn}/index/${grant.index}` };
  }
  if (!stack.machines.has(grant.machine)) throw new Error(`${where} declares the state machine "${grant.machine}", which is not among the stack's (${[...stack.machines].join(', ')})`);
  const name = `${stack.prefix}${grant.machine}`;
  return grant.kind === 'stateMachine'
    ? { 'Fn::Sub': `${ARN}:states:\${AWS::Region}:\${AWS::AccountId}:stateMachine:${name}` }
    : { 'Fn::Sub': `${ARN}:states:\${AWS::Region}:\${AWS::AccountId}:execution:${name}:*` };
}

/**
 * A function's role: Lambda may assume it; it may write to the function's log
 * group (which the stack makes, so no logs:CreateLogGroup), send to X-Ray when
 * the function is traced (X-Ray's actions take no resource but "*"), and do
 * what the grants say, one statement per resource.
 */
export function roleOf({ functionKey, description, policyName, logGroupId, tracing, grants, stack }) {
  const where = `The function ${functionKey}'s bundle`;
  const statements = [
    ...(logGroupId ? [{ Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } }] : []),
    ...(tracing ? [{ Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' }] : []),
    ...grants.map((grant) => ({ Effect: 'Allow', Action: grant.actions.map((a) => `${grant.service}:${a}`), Resource: resourceOf(grant, stack, where) })),
  ];
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      Description: description,
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: ['sts:AssumeRole'] }],
      },
      Policies: [{ PolicyName: policyName, PolicyDocument: { Version: '2012-10-17', Statement: statements } }],
    },
  };
}

/** The logical id of a function's role, beside its LambdaFunction and LogGroup. */
export const roleLogicalId = (normalizedFunctionName) => `${normalizedFunctionName}IamRoleLambdaExecution`;

export default class RolesPerFunction {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      // Before Serverless makes its shared role: it makes none when every function names its own.
      'before:package:setupProviderConfiguration': () => this.name(),
      // After serverless-esbuild's hook of the same event, which builds the bundles.
      'before:package:createDeploymentArtifacts': () => this.grant(),
    };
  }

  get naming() {
    return this.serverless.getProvider('aws').naming;
  }

  name() {
    const { provider, functions = {} } = this.serverless.service;
    if (provider.iam?.role !== undefined || provider.role !== undefined || provider.iamRoleStatements !== undefined) {
      throw new Error('roles-per-function: serverless.yml sets a provider role or statements, which no function would get: each function has a role of its own, granting what its code declares (docs/deploying.md, "Permissions")');
    }
    for (const [key, fn] of Object.entries(functions)) {
      if (fn.role !== undefined) throw new Error(`roles-per-function: the function ${key} names a role, but every function's role is made from what its code declares`);
      fn.role = roleLogicalId(this.naming.getNormalizedFunctionName(key));
    }
  }

  grant() {
    const service = this.serverless.service;
    const prefix = `${service.service}-${this.serverless.getProvider('aws').getStage()}-`;
    const declared = [service.resources].flat().reduce((all, part) => ({ ...all, ...(part?.Resources ?? {}) }), {});
    const stack = stackOf(declared, prefix);
    const resources = service.provider.compiledCloudFormationTemplate.Resources;
    for (const [key, fn] of Object.entries(service.functions ?? {})) {
      resources[fn.role] = roleOf({
        functionKey: key,
        description: `${fn.name}: its own log group, and what its code declares (infra/roles-per-function.mjs)`,
        policyName: fn.name,
        logGroupId: fn.disableLogs ? undefined : this.naming.getLogGroupLogicalId(key),
        tracing: Boolean(fn.tracing || service.provider.tracing?.lambda),
        grants: grantsIn(bundleCode(this.serverless, key, fn, 'roles-per-function')),
        stack,
      });
    }
  }
}
