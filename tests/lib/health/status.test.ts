// /status: how checks add up to ok / degraded / down, and that a data store or
// workflow endpoint that never answers is reported as down instead of holding
// the request until the Lambda times out.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config.ts';
import { statusChecks } from '../../../lib/health/probes.ts';
import { cachedStatus, checkStatus, overallStatus, STATUS_TTL_MS, type Check } from '../../../lib/health/status.ts';

const reachable = async (): Promise<Check> => ({ configured: true, reachable: true, latencyMs: 1 });
const unreachable = async (): Promise<Check> => ({ configured: true, reachable: false, error: 'timed out' });
const notConfigured = async (): Promise<Check> => ({ configured: false, reachable: null });

describe('the status report', () => {
  it('is ok when everything configured answers, whatever is not configured', async () => {
    const report = await checkStatus({ dependencies: { dynamodb: reachable }, integrations: { slack: reachable, close: notConfigured } });
    expect(report.status).toBe('ok');
  });

  it('is degraded when a configured integration does not answer', async () => {
    const report = await checkStatus({ dependencies: { dynamodb: reachable }, integrations: { slack: unreachable } });
    expect(report.status).toBe('degraded');
    expect(report.integrations.slack).toMatchObject({ reachable: false, error: 'timed out' });
  });

  it('is down when a dependency does not answer, and a check that throws counts as unreachable', async () => {
    const report = await checkStatus({
      dependencies: { dynamodb: async () => Promise.reject(Object.assign(new Error('at https://secret@host'), { name: 'NetworkError' })) },
      integrations: { slack: reachable },
    });
    expect(report.status).toBe('down');
    expect(report.dependencies.dynamodb).toEqual({ reachable: false, error: 'NetworkError' });
  });
});

describe('the probes of DynamoDB and Step Functions', () => {
  // Accepts connections and never answers.
  let silent: Server;
  let endpoint: string;
  beforeAll(async () => {
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    silent.closeAllConnections();
    silent.close();
  });

  it('report an endpoint that hangs as unreachable, within the probe timeout', { timeout: 10_000 }, async () => {
    const config = loadConfig({
      STAGE: 'dev',
      TABLE_PREFIX: 'svc-dev-',
      PORTAL_URL: 'https://portal.example.com',
      DASHBOARD_URL: 'https://app.example.com',
      SUPABASE_URL: 'https://ref.supabase.co',
      SUPABASE_ANON_KEY: 'anon',
    });
    const credentials = { accessKeyId: 'x', secretAccessKey: 'y' };
    const checks = statusChecks(config, {
      dynamodb: new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials }),
      sfn: new SFNClient({ endpoint, region: 'eu-west-1', credentials }),
      accountsTable: 'accounts',
      stateMachineArn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:onboarding',
    });
    const report = await checkStatus({ dependencies: checks.dependencies, integrations: {} });
    expect(report.status).toBe('down');
    expect(report.dependencies.dynamodb).toMatchObject({ configured: true, reachable: false, error: 'timed out' });
    expect(report.dependencies.stepFunctions).toMatchObject({ configured: true, reachable: false, error: 'timed out' });
  });
});

describe('the status an anonymous caller sees', () => {
  it('is the overall status and when it was checked, nothing about any dependency or integration', async () => {
    const report = await checkStatus({ dependencies: { dynamodb: reachable }, integrations: { slack: unreachable } });
    expect(overallStatus(report)).toEqual({ status: 'degraded', checkedAt: report.checkedAt });
  });
});

describe('the cached status', () => {
  const counting = () => {
    const calls = { dynamodb: 0, slack: 0 };
    let release: () => void = () => {};
    let gate: Promise<void> | undefined;
    const deps = {
      dependencies: { dynamodb: async () => (calls.dynamodb++, await gate, { configured: true, reachable: true }) },
      integrations: { slack: async () => (calls.slack++, await gate, { configured: true, reachable: true }) },
    };
    return {
      calls,
      deps,
      hold: () => (gate = new Promise<void>((r) => (release = r))),
      release: () => release(),
    };
  };

  it('probes each check at most once per 30 s however many ask, at once or one after another', async () => {
    const c = counting();
    let now = 1_000_000;
    const status = cachedStatus(c.deps, { ttlMs: STATUS_TTL_MS, now: () => now });
    expect(STATUS_TTL_MS).toBe(30_000);
    c.hold();
    const together = Array.from({ length: 20 }, () => status());
    c.release();
    const reports = await Promise.all(together);
    for (let i = 0; i < 20; i++) await status();
    expect(c.calls).toEqual({ dynamodb: 1, slack: 1 });
    expect(new Set(reports.map((r) => r.checkedAt)).size).toBe(1);
    now += STATUS_TTL_MS - 1;
    await status();
    expect(c.calls).toEqual({ dynamodb: 1, slack: 1 });
    now += 1;
    await status();
    expect(c.calls).toEqual({ dynamodb: 2, slack: 2 });
  });

  it('keeps a failed probe for the same time (an outage is no reason to probe harder)', async () => {
    let calls = 0;
    const now = 0;
    const status = cachedStatus({ dependencies: { dynamodb: async () => (calls++, Promise.reject(new Error('down'))) }, integrations: {} }, { ttlMs: STATUS_TTL_MS, now: () => now });
    expect((await status()).status).toBe('down');
    expect((await status()).status).toBe('down');
    expect(calls).toBe(1);
  });
});
