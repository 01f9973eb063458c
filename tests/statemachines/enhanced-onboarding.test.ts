// The enhanced onboarding and crawler refresh ASL (built from the registry):
// valid, wired to the functions CloudFormation substitutes, and behaving as
// designed when run by the local engine with fake steps.
import validator from 'asl-validator';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serviceFunctions } from '../../infra/functions.ts';
import { ENHANCED_INTEGRATIONS } from '../../lib/onboarding/outcomes.ts';
import { functionLogicalId } from '../../local/serverless-config.ts';
import { collectStates, StepFunctionsEngine, type Invoke, type InvokeOutcome, type MachineDefinition } from '../../local/stepfunctions/engine.ts';
import { stateMachines, templates } from '../../statemachines/cloudformation.ts';

const infra = parse(readFileSync('infra/crawler.yml', 'utf8'), { logLevel: 'silent' }) as {
  Resources: Record<string, { Properties: { DefinitionSubstitutions: string; Definition: string } }>;
};
const machines = {
  enhanced: { name: 'enhanced-onboarding', resource: 'EnhancedOnboardingStateMachine' },
  refresh: { name: 'crawler-refresh', resource: 'CrawlerRefreshStateMachine' },
} as const;
const text = (m: keyof typeof machines) => JSON.stringify(stateMachines[machines[m].name]);

describe.each(Object.keys(machines) as (keyof typeof machines)[])('the %s state machine definition', (m) => {
  it('is valid ASL', () => {
    const { isValid, errors } = validator(JSON.parse(text(m)));
    expect(errors).toEqual([]);
    expect(isValid).toBe(true);
  });

  it('is the definition CloudFormation deploys, substituting exactly its placeholders, each with a declared function', () => {
    const resource = infra.Resources[machines[m].resource]!.Properties;
    expect(resource.Definition).toBe(`\${file(./infra/state-machines.cjs):${machines[m].name}.definition}`);
    expect(resource.DefinitionSubstitutions).toBe(`\${file(./infra/state-machines.cjs):${machines[m].name}.substitutions}`);
    const { substitutions } = templates[machines[m].name];
    const placeholders = new Set([...text(m).matchAll(/\$\{(\w+)\}/g)].map((x) => x[1]));
    expect(new Set(Object.keys(substitutions))).toEqual(placeholders);
    const logicalIds = new Set(Object.keys(serviceFunctions()).map(functionLogicalId));
    for (const value of Object.values(substitutions)) expect(logicalIds).toContain(value['Fn::GetAtt'][0]);
  });
});

describe('the enhanced onboarding definition', () => {
  const asl = JSON.parse(text('enhanced'));

  it('records the workflow’s own integrations, and has a first-pass task and a held retry for each', () => {
    for (const state of ['RecordOutcome', 'RecordRetryOutcome']) expect(asl.States[state].Parameters.integrations).toEqual([...ENHANCED_INTEGRATIONS]);
    const reported = new Set<string>();
    for (const [, state] of collectStates(asl, 'Pass')) {
      const integration = (state.Parameters as { integration?: string } | undefined)?.integration;
      if (integration) reported.add(integration);
    }
    expect([...reported].sort()).toEqual([...ENHANCED_INTEGRATIONS].sort());
    const held = collectStates(asl, 'Task').filter(([, s]) => (s.Parameters as { hold?: boolean }).hold);
    expect(held).toHaveLength(ENHANCED_INTEGRATIONS.length);
    for (const [name, state] of held) expect(state.Catch, name).toBeUndefined();
  });

  it('catches every integration task of the first pass', () => {
    for (const [name, state] of collectStates(asl, 'Task')) {
      if ((state.Parameters as { hold?: boolean }).hold || name === 'AssignSlug' || name.startsWith('Record')) continue;
      expect(state.Catch, name).toBeDefined();
    }
  });
});

// --- behaviour, through the local engine with fake steps -------------------------------------

const definitionOf = (m: keyof typeof machines): MachineDefinition => ({
  arn: `arn:aws:states:eu-west-1:000000000000:stateMachine:test-${m}`,
  name: `test-${m}`,
  roleArn: 'arn:aws:iam::000000000000:role/r',
  creationDate: Date.now(),
  functionArns: {},
  definition: JSON.parse(text(m).replace(/\$\{(\w+)Arn\}/g, '$1')),
});

type Branch = { integration?: string; outcome?: string };
type Input = { hold?: boolean; redriveCount?: number; integrations?: string[]; branches?: (Branch | Branch[])[]; jobId?: string };
const integrationOf: Record<string, string> = {
  ProvisionStorageTree: 'dropbox',
  AnalyseSite: 'analysis',
  ScrapeSite: 'scrape',
  UploadSiteCsv: 'upload',
  SyncCrmLead: 'close',
  PostChatNotices: 'slack',
};

/** Fake step Lambdas with the real ones' rules: the upload needs the scrape and the folder; held steps wait for a redrive. */
function steps(failing: Set<string>) {
  const calls: string[] = [];
  const done = new Set<string>();
  let scrapeStarted!: () => void;
  const scrapeStarting = new Promise<void>((r) => (scrapeStarted = r));
  const seen = { analysisSawScrapeRunning: false };
  const invoke: Invoke = async (fn, payload): Promise<InvokeOutcome> => {
    const input = payload as Input;
    calls.push(fn);
    if (fn === 'AssignSlug') return { ok: true, payload: { portalSlug: 'acme', dashboardSlug: 'acme' } };
    if (fn === 'FinishCrawlJob') return { ok: true, payload: { status: done.has('analysis') && done.has('scrape') ? 'completed' : 'failed' } };
    if (fn === 'RecordOutcome') {
      const failed = Object.fromEntries((input.integrations ?? []).map((i) => [i, !done.has(i)]));
      return { ok: true, payload: { success: !Object.values(failed).some(Boolean), failed } };
    }
    const integration = integrationOf[fn]!;
    if (input.hold && !input.redriveCount) return { ok: false, errorType: 'AwaitingRedrive', errorMessage: `${integration} held` };
    if (fn === 'ScrapeSite') scrapeStarted();
    if (fn === 'AnalyseSite') {
      // Both only need the URL: the scrape is under way while the analysis runs (or the wait runs out).
      await Promise.race([scrapeStarting, new Promise((r) => setTimeout(r, 2000))]);
      seen.analysisSawScrapeRunning = calls.includes('ScrapeSite');
    }
    if (failing.has(integration)) return { ok: false, errorType: 'VendorRejected', errorMessage: `${integration}: refused` };
    if (fn === 'UploadSiteCsv' && !(done.has('scrape') && done.has('dropbox'))) return { ok: false, errorType: 'PrerequisiteMissing', errorMessage: 'waits' };
    done.add(integration);
    return { ok: true, payload: { integration, outcome: 'success' } };
  };
  return { invoke, calls, seen };
}

async function run(m: keyof typeof machines, failing: string[], input: Record<string, unknown>) {
  const broken = new Set(failing);
  const fake = steps(broken);
  const machine = definitionOf(m);
  const engine = new StepFunctionsEngine([machine], fake.invoke);
  const { executionArn } = engine.startExecution(machine.arn, 'run-1', JSON.stringify(input));
  await engine.idle();
  return { engine, executionArn, broken, ...fake };
}
const onboardingInput = { accountId: 'a', email: 'a@b.co', runId: 'run-1' };

describe('the enhanced onboarding at work', () => {
  it('runs storage, analysis, scrape and CRM side by side, then the upload, the chat notice and the outcome', async () => {
    const { engine, executionArn, calls, seen } = await run('enhanced', [], onboardingInput);
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls.slice(0, 1)).toEqual(['AssignSlug']);
    expect(calls.slice(1, 5).sort()).toEqual(['AnalyseSite', 'ProvisionStorageTree', 'ScrapeSite', 'SyncCrmLead']);
    expect(calls.slice(5)).toEqual(['FinishCrawlJob', 'UploadSiteCsv', 'PostChatNotices', 'RecordOutcome']);
    expect(seen.analysisSawScrapeRunning).toBe(true);
    const output = JSON.parse(engine.describeExecution(executionArn).output!);
    expect(output.outcome.success).toBe(true);
  });

  it('lets the rest finish when the scrape fails, then holds the scrape and the upload that needed it for a redrive', async () => {
    const { engine, executionArn, calls, broken } = await run('enhanced', ['scrape'], onboardingInput);
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: 'AwaitingRedrive' });
    for (const fn of ['ProvisionStorageTree', 'AnalyseSite', 'SyncCrmLead', 'UploadSiteCsv', 'PostChatNotices', 'RecordOutcome']) expect(calls).toContain(fn);

    broken.clear();
    calls.length = 0;
    engine.redriveExecution(executionArn);
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    // Only the scrape ran again, then the job was closed anew, the upload ran after it, and the outcome was recorded.
    expect(calls).toEqual(['ScrapeSite', 'FinishCrawlJob', 'UploadSiteCsv', 'RecordOutcome']);
  });

  it('holds a failed chat notice alone, after everything else', async () => {
    const { engine, executionArn, calls, broken } = await run('enhanced', ['slack'], onboardingInput);
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: 'AwaitingRedrive' });
    broken.clear();
    calls.length = 0;
    engine.redriveExecution(executionArn);
    await engine.idle();
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls).toEqual(['PostChatNotices', 'RecordOutcome']);
  });
});

describe('the crawler refresh at work', () => {
  const refreshInput = { accountId: 'a', jobId: 'job-1' };

  it('analyses and scrapes side by side, then closes the job', async () => {
    const { engine, executionArn, calls, seen } = await run('refresh', [], refreshInput);
    expect(engine.describeExecution(executionArn).status).toBe('SUCCEEDED');
    expect(calls.slice(0, 2).sort()).toEqual(['AnalyseSite', 'ScrapeSite']);
    expect(calls.slice(2)).toEqual(['FinishCrawlJob']);
    expect(seen.analysisSawScrapeRunning).toBe(true);
  });

  it('still closes the job when a part fails, and ends failed, so operators see it', async () => {
    const { engine, executionArn, calls } = await run('refresh', ['analysis'], refreshInput);
    expect(calls).toContain('FinishCrawlJob');
    expect(engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: 'CrawlFailed' });
  });
});
