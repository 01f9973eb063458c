// The onboarding state machines are the integration registry, and nothing
// else: every registered integration of a workflow has its caught first-pass
// branch and its held retry, with the registry's retry policy and timeout;
// adding one to the registry is all it takes to get both; and what
// CloudFormation deploys is what was generated.
import validator from 'asl-validator';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENHANCED_INTEGRATIONS, INTEGRATIONS } from '../../lib/onboarding/outcomes.ts';
import { functionsFrom, serviceFunctions, stepsOf } from '../../infra/functions.ts';
import { catalog } from '../../lib/api/catalog.ts';
import type { IntegrationSettings } from '../../lib/config.ts';
import { statusChecks } from '../../lib/health/probes.ts';
import { integrationOutcomes, outcome } from '../../lib/onboarding/routes.ts';
import { actionOf, integrations, vendors, workflows, type IntegrationSpec, type VendorSpec, type Workflow } from '../../lib/provisioning/registry.ts';
import { emulators, localVendorsFor, type LocalVendor } from '../../local/emulators/index.ts';
import { describeFollowUp, remedies } from '../../scripts/executions-cli.ts';
import { collectStates, StepFunctionsEngine, type Invoke, type InvokeOutcome, type MachineDefinition } from '../../local/stepfunctions/engine.ts';
import { placeholderOf, retryPolicies, type Machine, type State } from '../../statemachines/asl.ts';
import { stateMachines, templateOf, templates } from '../../statemachines/cloudformation.ts';
import { workflowMachine } from '../../statemachines/workflows.ts';

type Task = State & { Resource: string; Parameters: Record<string, unknown>; Retry: { ErrorEquals: string[] }[]; Catch?: { ErrorEquals: string[]; Next: string }[]; TimeoutSeconds: number };

const placeholder = (spec: Pick<IntegrationSpec, 'step'>) => `\${${placeholderOf(spec.step)}}`;
const tasksOf = (machine: Machine) => collectStates(machine as never, 'Task') as [string, Task][];
/** The tasks that do an integration's own work (not a part of another's), in the first pass or the held retry. */
const tasksFor = (machine: Machine, spec: IntegrationSpec, held: boolean) =>
  tasksOf(machine).filter(([, t]) => t.Resource === placeholder(spec) && !t.Parameters.part && Boolean(t.Parameters.hold) === held);

/** Checks one generated machine against the workflow and registry it was built from. */
function expectBuiltFrom(machine: Machine, workflow: Workflow<string>, registry: Readonly<Record<string, IntegrationSpec>>) {
  expect(validator(machine).errors).toEqual([]);
  for (const record of ['RecordOutcome', 'RecordRetryOutcome']) expect((machine.States[record] as Task).Parameters.integrations).toEqual([...workflow.integrations]);
  const passes = Object.fromEntries(collectStates(machine as never, 'Pass'));

  for (const key of workflow.integrations) {
    // The step this workflow runs for the integration: its provisioning, or its take-back.
    const spec = actionOf(registry[key]!, workflow.action);
    const [first, ...moreFirst] = tasksFor(machine, spec, false);
    expect(first, `${key}: a first-pass task`).toBeDefined();
    expect(moreFirst, key).toEqual([]);
    const [name, task] = first!;
    expect(task.Retry, key).toEqual(retryPolicies[spec.retry]);
    expect(task.TimeoutSeconds, key).toBe(spec.timeoutSeconds);
    expect(task.Parameters, key).toMatchObject({ 'runId.$': '$.runId', ...spec.input });
    // Caught: a lasting failure becomes this integration's failed outcome, and the other branches go on.
    expect(task.Catch, key).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: `${name}Failed` }]);
    expect(passes[`${name}Failed`], key).toMatchObject({ Parameters: { integration: key, outcome: 'failed' } });
    // In a stage: a branch of a Parallel state at the top level, which a redrive re-runs alone.
    const stage = workflow.stages.find((s) => s.run.includes(key))!;
    const parallel = machine.States[stage.name] as { Branches: Machine[] };
    expect(parallel.Branches.some((b) => b.StartAt === name), key).toBe(true);

    const [held, ...moreHeld] = tasksFor(machine, spec, true);
    expect(held, `${key}: a held retry`).toBeDefined();
    expect(moreHeld, key).toEqual([]);
    const [heldName, heldTask] = held!;
    expect(heldTask.Parameters, key).toMatchObject({ hold: true, 'redriveCount.$': '$$.Execution.RedriveCount' });
    expect(heldTask.Retry, key).toEqual(retryPolicies[spec.retry]);
    // AwaitingRedrive must end the execution: not retried, not caught.
    expect(heldTask.Catch, key).toBeUndefined();
    expect(heldTask.Retry.flatMap((r) => r.ErrorEquals), key).not.toEqual(expect.arrayContaining([expect.stringMatching(/^(AwaitingRedrive|States\.ALL)$/)]));
    const choice = collectStates(machine as never, 'Choice').find(([, c]) => (c.Choices as { Next: string }[])[0]!.Next === heldName);
    expect(choice?.[1], key).toMatchObject({ Choices: [{ Variable: `$.outcome.failed.${key}`, BooleanEquals: true }] });
  }
}

describe('the registry', () => {
  it('gives each workflow only registered integrations, each run by exactly one stage', () => {
    for (const workflow of Object.values(workflows) as Workflow[]) {
      const staged = workflow.stages.flatMap((s) => s.run);
      expect([...staged].sort()).toEqual([...workflow.integrations].sort());
      for (const key of workflow.integrations) expect(Object.keys(integrations)).toContain(key);
    }
  });

  it('is where the run answers take their integrations from', () => {
    expect(INTEGRATIONS).toEqual(workflows.onboarding.integrations);
    expect(ENHANCED_INTEGRATIONS).toEqual(workflows['enhanced-onboarding'].integrations);
  });

  it('names steps the service deploys, with state timeouts no shorter than their functions may run', () => {
    const yml = parse(readFileSync('serverless.yml', 'utf8'), { logLevel: 'silent' }) as { provider: { timeout: number } };
    const functions = serviceFunctions();
    for (const [name, machine] of Object.entries(stateMachines)) {
      for (const [state, task] of tasksOf(machine)) {
        const step = Object.keys(functions).find((key) => task.Resource === placeholder({ step: key }));
        expect(step, `${name}: ${state} runs ${task.Resource}`).toBeDefined();
        expect(task.TimeoutSeconds, `${name}: ${state}`).toBeGreaterThanOrEqual(functions[step!]!.timeout ?? yml.provider.timeout);
      }
    }
  });
});

describe('the generated workflow machines', () => {
  it.each(Object.keys(workflows) as (keyof typeof workflows)[])('%s has, for each of its integrations, a caught branch and a held retry with its policy', (name) => {
    expectBuiltFrom(stateMachines[name], workflows[name], integrations);
  });

  it('run the storage-ready e-mail right after the folder, only where both are provisioned', () => {
    const part = (machine: Machine) => tasksOf(machine).filter(([, t]) => t.Parameters.part === 'after-storage').map(([n]) => n);
    expect(part(stateMachines.onboarding)).toEqual(['SendOnboardingEmailsAfterStorage', 'ReSendOnboardingEmailsAfterStorage']);
    const storage = (stateMachines.onboarding.States.Provision as { Branches: Machine[] }).Branches.find((b) => b.StartAt === 'ProvisionStorageTree')!;
    expect(storage.States['ProvisionStorageTreeWaiting?']).toMatchObject({ Default: 'SendOnboardingEmailsAfterStorage' });
    expect(part(stateMachines['enhanced-onboarding'])).toEqual([]);
  });

  describe('with a new integration added to the registry', () => {
    const registry = {
      ...integrations,
      calendar: {
        step: 'provision-calendar',
        vendor: 'calendar',
        remedy: 'Check the calendar vendor: its key is valid.',
        retry: 'vendor',
        timeoutSeconds: 150,
        lambda: { handler: 'functions/onboarding/steps/provision-calendar.ts' },
      },
    } satisfies Record<string, IntegrationSpec>;
    // Its vendor: settings of its own would be a section of lib/config.ts; this one reads the CRM's.
    const withVendor = { ...vendors, calendar: { settings: 'crm', probeUrl: () => 'http://127.0.0.1:9/calendar', mode: () => 'api key', emulator: 'calendar' } } satisfies Record<string, VendorSpec>;
    const withCalendar = (workflow: Workflow): Workflow<string> => ({
      ...workflow,
      integrations: [...workflow.integrations, 'calendar'],
      stages: workflow.stages.map((s, i) => (i === 0 ? { ...s, run: [...s.run, 'calendar'] } : s)),
    });
    const machines = {
      onboarding: workflowMachine('onboarding', withCalendar(workflows.onboarding), registry),
      'enhanced-onboarding': workflowMachine('enhanced-onboarding', withCalendar(workflows['enhanced-onboarding']), registry),
    };

    it.each(Object.keys(machines) as (keyof typeof machines)[])('%s gets its branch, retry and catch, and its held retry', (name) => {
      expectBuiltFrom(machines[name], withCalendar(workflows[name]), registry);
      expect(templateOf(machines[name]).substitutions.ProvisionCalendarArn).toEqual({ 'Fn::GetAtt': ['ProvisionDashcalendarLambdaFunction', 'Arn'] });
    });

    it('has its function, its place in the answer, its /status check, its follow-up advice and its emulator', async () => {
      expect(functionsFrom(catalog, stepsOf(registry))['provision-calendar']).toEqual({ handler: 'functions/onboarding/steps/provision-calendar.handler' });
      for (const name of ['onboarding', 'enhanced-onboarding'] as const) {
        const answer = integrationOutcomes(withCalendar(workflows[name]).integrations);
        expect(answer.required).toContain('calendar');
        expect(answer.properties.calendar).toEqual(outcome);
      }
      const config = { identity: { url: 'http://127.0.0.1:9' }, crm: { apiBase: 'http://127.0.0.1:9/close' }, crawler: {} } as unknown as IntegrationSettings;
      const checks = statusChecks(config, { dynamodb: undefined as never, sfn: undefined as never, accountsTable: 't' }, { integrations: registry, vendors: withVendor });
      expect(Object.keys(checks.integrations)).toContain('calendar');
      expect(await checks.integrations.calendar!()).toMatchObject({ configured: true, mode: 'calendar (api key)', endpoint: 'http://127.0.0.1:9', reachable: false });
      const followUp = { account_id: 'a', integration: 'calendar', message: 'calendar: refused', run_id: 'r', last_failed_at: '2030-01-01T00:00:00Z' };
      expect(describeFollowUp(followUp, undefined, { stage: 'local', region: 'eu-west-1' }, remedies(registry))).toContain('  what to do:  Check the calendar vendor: its key is valid.');
      const emulator = { create: () => undefined as never, env: () => ({}) } satisfies LocalVendor;
      expect(localVendorsFor({ integrations: registry, vendors: withVendor }, { ...emulators, calendar: emulator })).toContain(emulator);
      expect(() => localVendorsFor({ integrations: registry, vendors: withVendor })).toThrow('emulators local/emulators does not have: calendar');
    });

    it('runs it beside the others, holds it alone when it fails, and a redrive provisions just it', async () => {
      const failing = new Set(['ProvisionCalendar']);
      const calls: string[] = [];
      const invoke: Invoke = async (fn, payload): Promise<InvokeOutcome> => {
        const input = payload as { hold?: boolean; redriveCount?: number; integrations?: string[]; branches?: { integration: string; outcome: string }[][] };
        calls.push(fn);
        if (fn === 'AssignSlug') return { ok: true, payload: { portalSlug: 'acme' } };
        if (fn === 'RecordOutcome') {
          const failed = Object.fromEntries((input.integrations ?? []).map((i) => [i, input.branches!.flat().some((b) => b.integration === i && b.outcome === 'failed')]));
          return { ok: true, payload: { success: !Object.values(failed).some(Boolean), failed } };
        }
        const integration = Object.entries(registry).find(([, s]) => placeholder(s) === `\${${fn}Arn}`)![0];
        if (input.hold && !input.redriveCount) return { ok: false, errorType: 'AwaitingRedrive', errorMessage: 'held' };
        if (failing.has(fn)) return { ok: false, errorType: 'VendorRejected', errorMessage: 'refused' };
        return { ok: true, payload: { integration, outcome: 'success' } };
      };
      const machine: MachineDefinition = {
        arn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:test-calendar',
        name: 'test-calendar',
        roleArn: 'arn:aws:iam::000000000000:role/r',
        creationDate: Date.now(),
        functionArns: {},
        definition: JSON.parse(JSON.stringify(machines.onboarding).replace(/\$\{(\w+)Arn\}/g, '$1')),
      };
      const engine = new StepFunctionsEngine([machine], invoke);
      const { executionArn } = engine.startExecution(machine.arn, 'run-1', JSON.stringify({ accountId: 'a', email: 'a@b.co', runId: 'run-1' }));
      await engine.idle();
      expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: 'AwaitingRedrive' });
      for (const fn of ['ProvisionTaskTool', 'ProvisionStorageTree', 'SendOnboardingEmails', 'PostChatNotices', 'SyncCrmLead']) expect(calls).toContain(fn);

      failing.clear();
      calls.length = 0;
      engine.redriveExecution(executionArn);
      await engine.idle();
      expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
      expect(calls).toEqual(['ProvisionCalendar', 'RecordOutcome']);
    });
  });
});

describe('what CloudFormation deploys', () => {
  const declared = Object.assign(
    {},
    ...readdirSync('infra')
      .filter((f) => f.endsWith('.yml'))
      .map((f) => (parse(readFileSync(`infra/${f}`, 'utf8'), { logLevel: 'silent' }) as { Resources: Record<string, { Type: string; Properties: Record<string, any> }> }).Resources),
  ) as Record<string, { Type: string; Properties: Record<string, any> }>;

  it.each(Object.keys(stateMachines) as (keyof typeof stateMachines)[])('%s: the generated definition, its substitutions, and a role that may invoke exactly those functions', (name) => {
    const [, resource] = Object.entries(declared).find(([, r]) => r.Type === 'AWS::StepFunctions::StateMachine' && r.Properties.StateMachineName === `\${self:service}-\${sls:stage}-${name}`)!;
    const from = (part: string) => `\${file(./infra/state-machines.cjs):${name}.${part}}`;
    expect(resource.Properties.Definition).toBe(from('definition'));
    expect(resource.Properties.DefinitionSubstitutions).toBe(from('substitutions'));
    const role = declared[resource.Properties.RoleArn['Fn::GetAtt'][0]]!;
    expect(role.Properties.Policies[0].PolicyDocument.Statement).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: from('invokes') }]);

    const template = templates[name];
    expect(template.definition).toBe(stateMachines[name]);
    const placeholders = new Set([...JSON.stringify(stateMachines[name]).matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]));
    expect(new Set(Object.keys(template.substitutions))).toEqual(placeholders);
    expect(template.invokes).toEqual(Object.values(template.substitutions));
  });
});
