import { beforeEach, describe, expect, it } from 'vitest';
import { normaliseIntake } from '../../../lib/onboarding/intake.ts';
import type { RunResult } from '../../../lib/provisioning/outcomes.ts';
import { ANSWER_MARGIN_MS, awaitRun, beginOnboarding, onboard, readRun } from '../../../lib/onboarding/start-onboarding.ts';
import { fakeAccounts, fakeIntegrations, fakeRuns, fakeWorkflow } from '../../support/fakes.ts';

const result = (accountId: string, success = true): RunResult => ({
  success,
  accountId,
  portalSlug: 'acme',
  integrations: { clickup: 'success', dropbox: success ? 'success' : 'failed', resend: 'success', slack: 'success', close: 'success' },
  details: { clickup: {}, dropbox: {}, resend: {}, slack: {}, close: {} },
});

const noWait = { ms: 0, pollMs: 1, sleep: async () => {} };
const ACCOUNT = '0b6d5f7e-1111-4222-8333-444455556666';
const intake = normaliseIntake({ email: 'ann@acme.example', companyName: 'Acme', website: 'acme.example', plan: 'pro' });
let accounts: ReturnType<typeof fakeAccounts>;
let runs: ReturnType<typeof fakeRuns>;
let integrations: ReturnType<typeof fakeIntegrations>;

beforeEach(() => {
  accounts = fakeAccounts();
  runs = fakeRuns();
  integrations = fakeIntegrations();
});

describe('starting an onboarding', () => {
  it('creates the member record, the account (provisioning, with the latest details) and integration row, then starts the run', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    const member = accounts.members.of(ACCOUNT, 'ann@acme.example')!;
    expect(member).toMatchObject({ account_id: started.accountId, status: 'provisioning', role: 'owner' });
    expect(accounts.accounts.get(started.accountId)).toMatchObject({
      status: 'provisioning',
      company_name: 'Acme',
      company_domain: 'acme.example',
      contact_email: 'ann@acme.example',
      requested_plan: 'pro',
    });
    expect(integrations.rows.has(started.accountId)).toBe(true);
    expect(workflow.calls.map((c) => c.runId)).toEqual([started.runId]);
    expect(runs.records.get(started.runId)).toMatchObject({ account_id: started.accountId, status: 'running' });
  });

  it('tells the workflow whether the submission was seen before (a run it joins may then be a redrive)', async () => {
    const workflow = fakeWorkflow();
    const deps = { accounts: accounts.store, runs, integrations, workflow };
    await beginOnboarding(deps, ACCOUNT, intake);
    await beginOnboarding(deps, ACCOUNT, intake);
    await beginOnboarding(deps, ACCOUNT, normaliseIntake({ email: 'ann@acme.example', companyName: 'Acme Inc' }));
    expect(workflow.calls.map((c) => c.seenBefore)).toEqual([false, true, false]);
  });

  it('updates the account with the details of a later submission, as a new run', async () => {
    const workflow = fakeWorkflow();
    const deps = { accounts: accounts.store, runs, integrations, workflow };
    const first = await beginOnboarding(deps, ACCOUNT, intake);
    const second = await beginOnboarding(deps, ACCOUNT, normaliseIntake({ email: 'ann@acme.example', companyName: 'Acme Inc' }));
    expect(second.accountId).toBe(first.accountId);
    expect(second.runId).not.toBe(first.runId);
    expect(accounts.accounts.get(first.accountId)!.company_name).toBe('Acme Inc');
    expect(accounts.accounts.size).toBe(1);
  });

  it('never lets the form’s plan overwrite the plan the account is billed for', async () => {
    const deps = { accounts: accounts.store, runs, integrations, workflow: fakeWorkflow() };
    const first = await beginOnboarding(deps, ACCOUNT, intake);
    accounts.accounts.get(first.accountId)!.plan = 'enterprise';
    await beginOnboarding(deps, ACCOUNT, normaliseIntake({ email: 'ann@acme.example', companyName: 'Acme', plan: 'starter' }));
    expect(accounts.accounts.get(first.accountId)).toMatchObject({ plan: 'enterprise', requested_plan: 'starter' });
  });

  it('answers with the run result once the run records it', async () => {
    const workflow = fakeWorkflow((runId, input) => {
      setTimeout(() => void runs.saveResult(runId, String(input.accountId), 0, result(String(input.accountId))), 5);
    });
    const answer = await onboard({ accounts: accounts.store, runs, integrations, workflow, wait: { ms: 2000, pollMs: 2 } }, ACCOUNT, intake);
    expect(answer).toMatchObject({ state: 'finished', result: { success: true, portalSlug: 'acme' } });
  });

  it('answers "running" when the run outlives the wait', async () => {
    const answer = await onboard({ accounts: accounts.store, runs, integrations, workflow: fakeWorkflow(), wait: noWait }, ACCOUNT, intake);
    expect(answer).toMatchObject({ state: 'running', runId: expect.stringMatching(/-[0-9a-f]{16}$/) });
  });

  it('looks at the run soon at first and then about every twentieth of the time waited, up to a second; asks the workflow about once a second', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    let t = 0;
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      t += ms;
    };
    let statusChecks = 0;
    const counted = { ...workflow, status: async (arn: string) => (statusChecks++, workflow.status(arn)) };
    const answer = await awaitRun({ runs, workflow: counted, wait: { ms: 30_000, sleep, now: () => t } }, started);
    expect(answer.state).toBe('running');
    expect(waits.slice(0, 3)).toEqual([25, 25, 25]);
    let elapsed = 0;
    for (const w of waits) {
      expect(w).toBeLessThanOrEqual(Math.max(25, elapsed / 20));
      elapsed += w;
    }
    expect(Math.max(...waits)).toBe(1000);
    // Thirty seconds in about a hundred looks at the record, and about thirty questions to the workflow.
    expect(waits.length).toBeLessThan(120);
    expect(statusChecks).toBeGreaterThanOrEqual(25);
    expect(statusChecks).toBeLessThanOrEqual(30);
  });

  // On a busy stack the records and the start can take most of the function's time; the wait must not take the rest.
  it('answers "running" before the function runs out of time, however long starting the run took', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    // The function must answer by 29 s; starting the run took 20 s of it; the wait is 15 s.
    let t = 20_000;
    const sleep = async (ms: number) => {
      t += ms;
    };
    const answer = await awaitRun({ runs, workflow, wait: { ms: 15_000, sleep, now: () => t } }, started, 29_000);
    expect(answer.state).toBe('running');
    expect(t).toBeLessThanOrEqual(29_000 - ANSWER_MARGIN_MS);
    expect(t).toBeGreaterThanOrEqual(29_000 - ANSWER_MARGIN_MS - 1000);

    // With time to spare, the wait is the whole wait.
    t = 0;
    await awaitRun({ runs, workflow, wait: { ms: 15_000, sleep, now: () => t } }, started, 29_000);
    expect(t).toBe(15_000);
  });

  it('answers "broken" when the execution stopped without recording an outcome', async () => {
    const workflow = fakeWorkflow();
    workflow.setStatus('FAILED');
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    let t = 0;
    const answer = await awaitRun({ runs, workflow, wait: { ms: 1000, pollMs: 1, statusEveryMs: 10, sleep: async () => {}, now: () => t++ } }, started);
    expect(answer).toEqual({ state: 'broken', reason: 'stopped', runId: started.runId, accountId: started.accountId });
  });

  it('fails when the execution cannot be started after the run was recorded, and a resubmission starts it', async () => {
    let refuse = true;
    const workflow = fakeWorkflow(() => {
      if (refuse) throw new Error('ServiceUnavailable');
    });
    workflow.setStatus('MISSING');
    const deps = { accounts: accounts.store, runs, integrations, workflow };
    await expect(beginOnboarding(deps, ACCOUNT, intake)).rejects.toThrow('ServiceUnavailable');
    const [runId] = workflow.calls.map((c) => c.runId);
    expect(runs.records.get(runId!)).toMatchObject({ status: 'running' });
    const reading = { runs, workflow, executionArnOf: (id: string) => `arn:exec:${id}` };
    expect(await readRun(reading, ACCOUNT, runId!)).toMatchObject({ state: 'broken', reason: 'not_started' });

    refuse = false;
    workflow.setStatus('RUNNING');
    const again = await beginOnboarding(deps, ACCOUNT, intake);
    expect(again.runId).toBe(runId);
    expect(workflow.calls.map((c) => c.runId)).toEqual([runId, runId]);
    expect(await readRun(reading, ACCOUNT, runId!)).toMatchObject({ state: 'running' });
  });

  it('waits for the result of the current attempt, not an earlier one', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    await runs.saveResult(started.runId, started.accountId, 0, result(started.accountId, false));
    const answer = await awaitRun({ runs, workflow, wait: noWait }, { ...started, handle: { ...started.handle, attempt: 1 } });
    expect(answer.state).toBe('running');
  });
});

describe('reading a run', () => {
  it('answers a run of the account, and a run of another account as unknown', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    await runs.saveResult(started.runId, started.accountId, 0, result(started.accountId));
    const deps = { runs, workflow, executionArnOf: (id: string) => `arn:exec:${id}` };
    expect((await readRun(deps, ACCOUNT, started.runId)).state).toBe('finished');
    await expect(readRun(deps, crypto.randomUUID(), started.runId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(readRun(deps, ACCOUNT, 'no-such-run')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers the result of a run that finished between reading its record and asking for its execution, not "broken"', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    // The record is read while the run is still at work; the run then stores its result and its execution ends.
    workflow.status = async () => {
      await runs.saveResult(started.runId, started.accountId, 0, result(started.accountId));
      return 'SUCCEEDED';
    };
    const deps = { runs, workflow, executionArnOf: (id: string) => `arn:exec:${id}` };
    expect(await readRun(deps, ACCOUNT, started.runId)).toMatchObject({ state: 'finished', result: { success: true } });
  });

  it('answers "broken" for a run whose execution stopped without a result', async () => {
    const workflow = fakeWorkflow();
    workflow.setStatus('FAILED');
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    const deps = { runs, workflow, executionArnOf: (id: string) => `arn:exec:${id}` };
    expect(await readRun(deps, ACCOUNT, started.runId)).toEqual({ state: 'broken', reason: 'stopped', runId: started.runId, accountId: started.accountId });
  });

  it('answers "broken" (never started), not "running" for ever, for a recorded run that has no execution', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    workflow.setStatus('MISSING');
    const deps = { runs, workflow, executionArnOf: (id: string) => `arn:exec:${id}` };
    expect(await readRun(deps, ACCOUNT, started.runId)).toEqual({ state: 'broken', reason: 'not_started', runId: started.runId, accountId: started.accountId });
  });

  it('answers "running" while the workflow cannot be asked (a passing error)', async () => {
    const workflow = fakeWorkflow();
    const started = await beginOnboarding({ accounts: accounts.store, runs, integrations, workflow }, ACCOUNT, intake);
    workflow.status = async () => {
      throw new Error('ThrottlingException');
    };
    const deps = { runs, workflow, executionArnOf: (id: string) => `arn:exec:${id}` };
    expect(await readRun(deps, ACCOUNT, started.runId)).toMatchObject({ state: 'running' });
  });
});
