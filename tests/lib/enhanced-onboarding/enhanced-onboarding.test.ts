// The enhanced onboarding's use case, and what it shares with onboarding-v2:
// the run records, the per-workflow outcome, the run status.
import { beforeEach, describe, expect, it } from 'vitest';
import { dynamodbCrawlRecords } from '../../../lib/crawler/dynamodb-records.ts';
import { ENHANCED_WORKFLOW, onboardEnhanced } from '../../../lib/enhanced-onboarding/enhanced-onboarding.ts';
import { normaliseIntake } from '../../../lib/onboarding/intake.ts';
import { ENHANCED_INTEGRATIONS } from '../../../lib/onboarding/outcomes.ts';
import type { StepReport } from '../../../lib/provisioning/outcomes.ts';
import { runIdFor } from '../../../lib/onboarding/run-id.ts';
import { dynamodbRuns } from '../../../lib/provisioning/runs.ts';
import { readRun } from '../../../lib/onboarding/start-onboarding.ts';
import { recordOutcome } from '../../../lib/onboarding/steps/record-outcome.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { fakeAccounts, fakeFollowUps, fakeIntegrations, fakeRuns, fakeWorkflow } from '../../support/fakes.ts';

const dynamo = useDynamo();
let accounts: ReturnType<typeof fakeAccounts>;
let runs: ReturnType<typeof fakeRuns>;
let crawl: ReturnType<typeof dynamodbCrawlRecords>;

beforeEach(() => {
  accounts = fakeAccounts();
  runs = fakeRuns();
  crawl = dynamodbCrawlRecords({ db: dynamo.db, tables: dynamo.tables });
});

/** A workflow that notes, at the moment it starts, whether the run's crawl job already exists. */
function workflow() {
  const starts: { runId: string; jobExisted: boolean }[] = [];
  const wf = fakeWorkflow(async (runId) => void starts.push({ runId, jobExisted: (await crawl.jobs.get(runId)) !== undefined }));
  return Object.assign(wf, { starts });
}

const deps = (wf = workflow()) => ({ accounts: accounts.store, integrations: fakeIntegrations(), runs, workflow: wf, wait: { ms: 0, sleep: async () => {} }, crawl });

describe('starting an enhanced onboarding', () => {
  it("opens the run's crawl job on the company website before the run starts, and answers like onboarding-v2", async () => {
    const wf = workflow();
    const t = crypto.randomUUID().slice(0, 8);
    const intake = normaliseIntake({ email: `ann@${t}.example`, companyName: 'Acme', website: `${t}.example/home` });
    const accountId = crypto.randomUUID();
    const answer = await onboardEnhanced(deps(wf), accountId, intake);
    expect(answer).toMatchObject({ state: 'running' });
    expect(wf.starts).toEqual([{ runId: answer.runId, jobExisted: true }]);
    expect(await crawl.jobs.get(answer.runId)).toMatchObject({ account_id: accountId, kind: 'onboarding', url: `https://${t}.example/home`, status: 'queued' });
    expect(runs.records.get(answer.runId)).toMatchObject({ account_id: accountId, workflow: ENHANCED_WORKFLOW });
    // The same submission to onboarding-v2 would be another run.
    expect(answer.runId).not.toBe(runIdFor(accountId, intake));
    expect(answer.runId).toBe(runIdFor(accountId, intake, ENHANCED_WORKFLOW));
  });

  it('opens no crawl job without a website', async () => {
    const answer = await onboardEnhanced(deps(), crypto.randomUUID(), normaliseIntake({ email: 'bo@example.com', companyName: 'No Site' }));
    expect(await crawl.jobs.get(answer.runId)).toBeUndefined();
  });

  it("reads an enhanced run's status from its own state machine", async () => {
    const accountId = crypto.randomUUID();
    const answer = await onboardEnhanced(deps(), accountId, normaliseIntake({ email: 'cy@example.com', companyName: 'Cy' }));
    const asked: (string | undefined)[] = [];
    await readRun({ runs, workflow: workflow(), executionArnOf: (runId, wf) => (asked.push(wf), `arn:${runId}`) }, accountId, answer.runId);
    expect(asked).toEqual([ENHANCED_WORKFLOW]);
  });
});

describe('the run records in DynamoDB', () => {
  it("keep a run's workflow through its result", async () => {
    const store = dynamodbRuns({ db: dynamo.db, tables: dynamo.tables });
    const runId = `run-${crypto.randomUUID()}`;
    await store.begin(runId, 'acct', ENHANCED_WORKFLOW);
    await store.saveResult(runId, 'acct', 0, { success: true, accountId: 'acct', portalSlug: 'acme', integrations: { dropbox: 'success' }, details: {} });
    expect(await store.get(runId)).toMatchObject({ workflow: ENHANCED_WORKFLOW, status: 'succeeded' });
    const v2 = `run-${crypto.randomUUID()}`;
    await store.begin(v2, 'acct');
    expect(await store.get(v2)).not.toHaveProperty('workflow');
  });
});

describe("recording a workflow's outcome", () => {
  const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  const input = { accountId: 'acct', runId: 'run', portalSlug: 'acme', attempt: 0, branches: [], integrations: ENHANCED_INTEGRATIONS };
  let followUps: ReturnType<typeof fakeFollowUps>;
  beforeEach(async () => {
    followUps = fakeFollowUps();
    await accounts.store.saveAccountDetails('acct', { company_name: 'Acme' });
  });
  const report = (integration: StepReport['integration'], outcome: StepReport['outcome'], extra: Partial<StepReport> = {}) =>
    runs.recordStep('run', { integration, outcome, details: {}, at: at(1), ...extra });

  it("answers with exactly the workflow's integrations and their details", async () => {
    for (const i of ENHANCED_INTEGRATIONS) await report(i, 'success', { details: { of: i } });
    const answer = await recordOutcome({ runs, accounts: accounts.store, lifecycle: accounts.lifecycle, followUps }, input);
    expect(answer).toEqual({ success: true, failed: { dropbox: false, analysis: false, scrape: false, upload: false, close: false, slack: false } });
    const { result } = runs.records.get('run')!;
    expect(Object.keys(result!.integrations)).toEqual([...ENHANCED_INTEGRATIONS]);
    expect(result!.details.analysis).toEqual({ of: 'analysis' });
  });

  it('fails an integration whose step never reported, from the nested branches the machine gathers, and opens only its follow-ups', async () => {
    for (const i of ['dropbox', 'analysis', 'close', 'slack'] as const) await report(i, 'success');
    await report('upload', 'failed', { error: { message: 'The content CSV waits for the website scrape, which has not finished', context: { code: 'prerequisite_missing' } } });
    const cause = JSON.stringify({ errorType: 'VendorUnavailable', errorMessage: 'firecrawl: the crawl did not finish in time' });
    const answer = await recordOutcome(
      { runs, accounts: accounts.store, lifecycle: accounts.lifecycle, followUps },
      { ...input, branches: [[{ integration: 'scrape', outcome: 'failed', error: { Error: 'VendorUnavailable', Cause: cause } }], { integration: 'upload', outcome: 'failed' }] },
    );
    expect(answer.failed).toMatchObject({ scrape: true, upload: true, analysis: false });
    expect(runs.records.get('run')!.result!.errors).toEqual([
      { integration: 'scrape', message: 'firecrawl: the crawl did not finish in time', context: { error: 'VendorUnavailable' } },
      { integration: 'upload', message: 'The content CSV waits for the website scrape, which has not finished', context: { code: 'prerequisite_missing' } },
    ]);
    expect((await followUps.listOpen()).map((f) => f.integration).sort()).toEqual(['scrape', 'upload']);
  });

  it('refuses an integration no workflow has', async () => {
    await expect(recordOutcome({ runs, accounts: accounts.store, lifecycle: accounts.lifecycle, followUps }, { ...input, integrations: ['dropbox', 'fax' as never] })).rejects.toThrow(/fax/);
  });
});
