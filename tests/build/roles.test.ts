// Each function's IAM role in the packaged template (infra/roles-per-function.mjs):
// one role per function, granting its own log group and exactly what its
// bundle declares (tests/build/declared-access.test.ts shows each declaration
// is what its code sends); what that means for the data an attacker would
// want; and the state machines' roles, which invoke only their own steps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { serviceFunctions } from '../../infra/functions.ts';
import { grantsIn, parseGrant, roleOf, stackOf } from '../../infra/roles-per-function.mjs';
import { functionLogicalId } from '../../local/serverless-config.ts';
import { templates } from '../../statemachines/cloudformation.ts';
import { packaged, type Template } from '../support/packaged.ts';

const PREFIX = 'agency-backend-ci-';
const functions = serviceFunctions();
let template: Template;
let work: string;
beforeAll(async () => {
  ({ template, work } = await packaged());
}, 360_000);

const ofType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
type Statement = { Effect: string; Action: string[]; Resource: unknown };
const roleOfFunction = (key: string) => {
  const fn = template.Resources[functionLogicalId(key)]!;
  const [roleId] = fn.Properties.Role['Fn::GetAtt'] as [string, 'Arn'];
  return { roleId, role: template.Resources[roleId]! };
};
const statementsOf = (key: string): Statement[] => roleOfFunction(key).role.Properties.Policies.flatMap((p: { PolicyDocument: { Statement: Statement[] } }) => p.PolicyDocument.Statement);
/** "dynamodb:PutItem on MembershipsTable", "states:StartExecution on stateMachine:onboarding", ... */
const grantsOf = (key: string) =>
  statementsOf(key).flatMap((s) => {
    const r = s.Resource as Record<string, any>;
    const on = r['Fn::GetAtt'] ? r['Fn::GetAtt'][0] : r['Fn::Sub'] ? String(r['Fn::Sub']).replace(/^\$\{(\w+)\.Arn\}/, '$1').replace(/^.*:(stateMachine|execution):agency-backend-ci-/, '$1:') : String(r);
    return s.Action.map((action) => `${action} on ${on}`);
  });
const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const writersOf = (tableId: string) =>
  Object.keys(functions)
    .filter((key) => grantsOf(key).some((g) => WRITES.some((w) => g === `${w} on ${tableId}`)))
    .sort();

describe('the roles of the packaged template', () => {
  it('gives every function a role of its own, which only Lambda may assume; no role is shared', () => {
    expect(template.Resources.IamRoleLambdaExecution).toBeUndefined();
    const roles = Object.keys(functions).map((key) => roleOfFunction(key).roleId);
    expect(new Set(roles).size).toBe(Object.keys(functions).length);
    for (const key of Object.keys(functions)) {
      const { role } = roleOfFunction(key);
      expect(role.Type, key).toBe('AWS::IAM::Role');
      expect(role.Properties.AssumeRolePolicyDocument.Statement, key).toEqual([{ Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: ['sts:AssumeRole'] }]);
      expect(role.Properties.ManagedPolicyArns, key).toBeUndefined();
    }
  });

  it("grants each function its own log group and exactly what its bundle declares, on this stack's tables and machines", () => {
    const stack = stackOf(template.Resources as never, PREFIX);
    expect(stack.tables.size).toBeGreaterThanOrEqual(17);
    for (const [key, fn] of Object.entries(functions)) {
      const code = readFileSync(join(work, '.build', `${fn.handler.replace(/\.[^.]+$/, '')}.mjs`), 'utf8');
      const logGroupId = functionLogicalId(key).replace(/LambdaFunction$/, 'LogGroup');
      expect(template.Resources[logGroupId]!.Properties.LogGroupName, key).toBe(`/aws/lambda/${PREFIX}${key}`);
      const expected = roleOf({ functionKey: key, description: '', policyName: '', logGroupId, tracing: false, grants: grantsIn(code), stack });
      expect(statementsOf(key), key).toEqual(expected.Properties.Policies[0].PolicyDocument.Statement);
      // Its own log group, to write lines only: the stack makes the group.
      expect(statementsOf(key)[0], key).toEqual({ Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } });
      for (const s of statementsOf(key).slice(1)) expect(s.Action.every((a) => a.startsWith('dynamodb:') || a.startsWith('states:')), `${key}: ${s.Action}`).toBe(true);
    }
  });

  it('gives health, healthz, openapi and not-found no DynamoDB or Step Functions access at all', () => {
    for (const key of ['health', 'healthz', 'openapi', 'not-found']) expect(grantsOf(key), key).toEqual([`logs:CreateLogStream on ${functionLogicalId(key).replace(/LambdaFunction$/, 'LogGroup')}`, `logs:PutLogEvents on ${functionLogicalId(key).replace(/LambdaFunction$/, 'LogGroup')}`]);
  });

  it('lets only the functions whose work it is write memberships, invitations, or the accounts table that holds billing', () => {
    // Who joins, changes, removes, or (through the team's store, which issuing invitations holds) may.
    expect(writersOf('MembershipsTable')).toEqual(
      ['accept-invitation', 'apply-payment-event', 'change-member-role', 'checkout-redirect', 'create-invitation', 'enhanced-onboarding', 'erase-account', 'leave-account', 'membership-webhook', 'onboarding-v2', 'open-account', 'remove-member', 'start-batch-rows', 'verify-email'].sort(),
    );
    expect(writersOf('InvitationsTable')).toEqual(
      ['accept-invitation', 'apply-payment-event', 'begin-offboarding', 'change-member-role', 'create-invitation', 'enhanced-onboarding', 'erase-account', 'leave-account', 'membership-webhook', 'onboarding-v2', 'remove-member', 'revoke-invitation', 'send-onboarding-emails', 'start-batch-rows'].sort(),
    );
    // Billing is on the account row: IAM grants by table, so this is every function that may update an account.
    expect(writersOf('AccountsTable')).toEqual(
      [
        'accept-invitation', 'apply-payment-event', 'archive-storage-tree', 'assign-slug', 'begin-offboarding', 'change-member-role', 'checkout-redirect', 'create-invitation', 'enhanced-onboarding', 'erase-account',
        'leave-account', 'membership-webhook', 'offboard-account', 'onboarding-v2', 'open-account', 'provision-storage-tree', 'record-outcome', 'remove-member', 'reopen-account', 'start-batch-rows', 'verify-email',
      ].sort(),
    );
    // Reading what one is shown, or guarding a route, writes nothing of it.
    for (const key of ['me', 'get-account', 'list-members', 'list-invitations', 'billing-portal', 'status', 'webhook-settings', 'booking-webhook', 'onboarding-run']) {
      expect(grantsOf(key).filter((g) => WRITES.some((w) => g.startsWith(`${w} on `)) && /on (Memberships|Invitations|Accounts)Table$/.test(g)), key).toEqual([]);
    }
  });

  it('lets no crawler step, whose work is parsing strangers\' pages, write memberships, invitations, accounts or webhook secrets', () => {
    const crawlerSteps = ['analyse-site', 'scrape-site', 'finish-crawl-job', 'upload-site-csv'];
    for (const key of crawlerSteps) expect(functions[key], key).toBeDefined();
    for (const table of ['MembershipsTable', 'InvitationsTable', 'AccountsTable', 'AccountMembersTable', 'WebhookSecretsTable', 'IntegrationsTable', 'VerificationTokensTable']) {
      expect(writersOf(table).filter((key) => crawlerSteps.includes(key)), table).toEqual([]);
    }
    for (const key of crawlerSteps) expect(grantsOf(key).some((g) => /on (Memberships|Invitations|WebhookSecrets|Integrations|VerificationTokens)Table/.test(g)), key).toBe(false);
  });

  it('lets each state machine invoke its own steps and nothing else', () => {
    const machines = ofType('AWS::StepFunctions::StateMachine');
    expect(machines.length).toBe(Object.keys(templates).length);
    for (const [id, machine] of machines) {
      const name = String(machine.Properties.StateMachineName).slice(PREFIX.length) as keyof typeof templates;
      const role = template.Resources[machine.Properties.RoleArn['Fn::GetAtt'][0]]!;
      const statements = role.Properties.Policies.flatMap((p: { PolicyDocument: { Statement: Statement[] } }) => p.PolicyDocument.Statement);
      expect(statements, id).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: templates[name].invokes }]);
      expect(Object.values(machine.Properties.DefinitionSubstitutions).sort(), id).toEqual([...templates[name].invokes].sort());
    }
  });
});

describe('declarations, as the plugin reads them', () => {
  it('takes tables, indexes, machines and executions, each with the actions IAM has for it', () => {
    expect(parseGrant('iam:dynamodb:table/invitations/index/byEmail:Query')).toMatchObject({ service: 'dynamodb', kind: 'index', table: 'invitations', index: 'byEmail', actions: ['Query'] });
    expect(parseGrant('iam:states:execution/onboarding:DescribeExecution,RedriveExecution')).toMatchObject({ kind: 'execution', machine: 'onboarding' });
    expect(() => parseGrant('iam:dynamodb:table/accounts:GetItems')).toThrow(/GetItems is not among the actions on a dynamodb table/);
    expect(() => parseGrant('iam:dynamodb:table/accounts/index/byStripeCustomer:PutItem')).toThrow(/PutItem is not among the actions on a dynamodb index/);
    expect(() => parseGrant('iam:s3:bucket/x:GetObject')).toThrow(/is no declaration of access/);
    expect(() => parseGrant('iam:dynamodb:accounts:GetItem')).toThrow(/is no declaration of access/);
  });

  it('merges what a bundle declares in several places, and fails a package that names what the stack lacks', () => {
    const code = `function a(){"iam:dynamodb:table/accounts:GetItem";"iam:dynamodb:table/accounts:UpdateItem"}function b(){"iam:dynamodb:table/accounts:GetItem"}`;
    expect(grantsIn(code)).toEqual([expect.objectContaining({ resource: 'table/accounts', actions: ['GetItem', 'UpdateItem'] })]);
    const stack = stackOf({ AccountsTable: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'svc-dev-accounts' } } }, 'svc-dev-');
    const role = (declared: string) => roleOf({ functionKey: 'f', description: '', policyName: 'p', logGroupId: 'FLogGroup', tracing: false, grants: grantsIn(`"${declared}"`), stack });
    expect(() => role('iam:dynamodb:table/acounts:GetItem')).toThrow(/declares the table "acounts", which is not among the stack's tables/);
    expect(() => role('iam:dynamodb:table/accounts/index/byEmail:Query')).toThrow(/declares the index "byEmail" of the table "accounts", which has none/);
    expect(() => role('iam:states:stateMachine/nope:StartExecution')).toThrow(/declares the state machine "nope"/);
  });

  it('grants X-Ray\'s two write actions to a traced function, on "*", the only resource they take', () => {
    const stack = stackOf({}, 'svc-dev-');
    const statements = (tracing: boolean) => roleOf({ functionKey: 'f', description: '', policyName: 'p', logGroupId: 'FLogGroup', tracing, grants: [], stack }).Properties.Policies[0].PolicyDocument.Statement;
    expect(statements(true)).toContainEqual({ Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' });
    expect(JSON.stringify(statements(false))).not.toContain('xray:');
  });
});
