// Stopping the whole local stack in the middle of onboardings, then starting
// it again on the same data: nothing is lost, and a redrive of each
// interrupted execution finishes it without duplicating what was done.
import { DescribeExecutionCommand, ListExecutionsCommand, RedriveExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startStack, type Stack } from '../../local/stack.ts';
import { expectProvisionedOnce, SERVICE_KEY, uniqueToken } from '../support/onboarding.ts';

const MACHINE = 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-local-onboarding';
const start = (dataDir: string) =>
  startStack({
    ports: { api: 0, emulators: 0, lambda: 0, dynamodb: 0, stepFunctions: 0 },
    dataDir,
    inProcess: true,
    esbuildWorkFolder: `.local/esbuild-restart-${process.pid}`,
    // ClickUp's pace far above its published one: the five runs are at work there together, not one after another.
    settings: { VENDOR_TIMEOUT_MS: '5000', VENDOR_MAX_ATTEMPTS: '2', CLICKUP_RATE_LIMIT: '1000/1' },
  });
const sfn = (stack: Stack) =>
  new SFNClient({ endpoint: stack.urls.stepFunctions, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
const until = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 240; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`gave up waiting: ${what}`);
};

it('loses nothing when the stack stops mid-onboarding; a redrive finishes every run', { timeout: 300_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'restart-'));
  let stack = await start(dataDir);
  try {
    // The task tool answers slowly, so the runs are mid-way when the stack stops.
    await fetch(`${stack.urls.emulators}/_local/latency`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor: 'clickup', ms: 1500 }) });
    const t = uniqueToken();
    const companies = Array.from({ length: 5 }, (_, i) => ({ name: `Restart ${i} ${t}`, slug: `restart-${i}-${t}`, email: `restart-${i}-${t}@example.com` }));
    const answers = companies.map((c) =>
      fetch(`${stack.urls.api}/api/onboarding-v2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...SERVICE_KEY },
        body: JSON.stringify({ email: c.email, companyName: c.name }),
      }).catch(() => undefined),
    );
    const running = async (s: Stack) => (await sfn(s).send(new ListExecutionsCommand({ stateMachineArn: MACHINE, statusFilter: 'RUNNING' }))).executions ?? [];
    await until(async () => (await running(stack)).length === companies.length, 'every run started');
    // Mid-way: every run has sent the slow task tool its folder, and has its lists and tasks still to make.
    const atWork = async (c: (typeof companies)[number]) =>
      ((await (await fetch(`${stack.urls.emulators}/_local/requests?vendor=clickup&match=${encodeURIComponent(`(${c.slug})`)}`)).json()) as unknown[]).length > 0;
    await until(async () => (await Promise.all(companies.map(atWork))).every(Boolean), 'every run at work at the task tool');
    await stack.stop();
    await Promise.allSettled(answers);

    stack = await start(dataDir);
    const { executions = [] } = await sfn(stack).send(new ListExecutionsCommand({ stateMachineArn: MACHINE }));
    expect(executions).toHaveLength(companies.length);
    // Interrupted, not lost: every run is there, ready for a redrive.
    expect(executions.map((e) => e.status)).toEqual(Array(companies.length).fill('ABORTED'));
    for (const e of executions) await sfn(stack).send(new RedriveExecutionCommand({ executionArn: e.executionArn }));
    await until(async () => {
      const statuses = await Promise.all(
        executions.map(async (e) => (await sfn(stack).send(new DescribeExecutionCommand({ executionArn: e.executionArn }))).status),
      );
      return statuses.every((s) => s === 'SUCCEEDED');
    }, 'every redriven run succeeded');

    const records = async (kind: string) => (await fetch(`${stack.urls.emulators}/_local/${kind}`)).json();
    for (const c of companies) {
      // A Slack post cut off by the stop may be repeated (Slack has no idempotency key); nothing else may.
      await expectProvisionedOnce(c.name, c.slug, c.email, { records, atLeastOnce: ['slack'] });
    }
    for (const e of executions) {
      const answer = await fetch(`${stack.urls.api}/api/onboarding/runs/${e.name}`, { headers: SERVICE_KEY });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { success: boolean }).success).toBe(true);
    }
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
