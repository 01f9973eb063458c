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
import { checkStatus, type Check } from '../../../lib/health/status.ts';

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
