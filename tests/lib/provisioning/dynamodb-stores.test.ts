// The provisioning stores against dynalite.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamodbLedger } from '../../../lib/provisioning/dynamodb-ledger.ts';
import { dynamodbFollowUps, FOLLOW_UPS_RECORDED } from '../../../lib/provisioning/follow-ups.ts';
import { remembered } from '../../../lib/provisioning/ledger.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { capturedMetrics } from '../../support/fakes.ts';

const d = useDynamo();

describe('the provisioning ledger', () => {
  const entry = (accountId: string, resource: string, maker = 'run-1') => ({ accountId, resource, maker });

  it('makes a thing once, keeps it in its account\'s row, and answers it to every run', async () => {
    const ledger = dynamodbLedger(d);
    let made = 0;
    const make = async () => ({ id: `x${++made}` });
    expect(await remembered(ledger, entry('acct', 'clickup#folder'), make)).toEqual({ id: 'x1' });
    expect(await remembered(ledger, entry('acct', 'clickup#folder', 'run-2'), make)).toEqual({ id: 'x1' });
    expect(await remembered(ledger, entry('other', 'clickup#folder'), make)).toEqual({ id: 'x2' });
    const row = (await d.db.send(new GetCommand({ TableName: d.tables.provisioning, Key: { account_id: 'acct', resource: 'clickup#folder' } }))).Item;
    expect(row).toMatchObject({ holder: 'run-1', value: { id: 'x1' }, finished_at: expect.any(String) });
    await ledger.put('acct', 'memberstack#member#mem_1', { email: 'ann@example.com' });
    expect(await ledger.get('acct', 'memberstack#member#mem_1')).toEqual({ email: 'ann@example.com' });
  });

  it('makes a thing once when two runs ask for it at the same moment', async () => {
    const ledger = dynamodbLedger(d);
    let made = 0;
    const make = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { id: `lead-${++made}` };
    };
    const both = await Promise.all([remembered(ledger, entry('acct-race', 'close#lead', 'run-a'), make), remembered(ledger, entry('acct-race', 'close#lead', 'run-b'), make)]);
    expect(made).toBe(1);
    expect(both).toEqual([{ id: 'lead-1' }, { id: 'lead-1' }]);
  });
});

describe('follow-ups', () => {
  it('opens, counts repeated failures, and resolves', async () => {
    const followUps = dynamodbFollowUps({ ...d, metrics: capturedMetrics().metrics });
    const error = { integration: 'dropbox' as const, message: 'dropbox: down', context: { status: 503 } };
    await followUps.open('acct-f', 'run-1', error);
    await followUps.open('acct-f', 'run-2', error);
    const open = (await followUps.listOpen()).filter((f) => f.account_id === 'acct-f');
    expect(open).toEqual([expect.objectContaining({ integration: 'dropbox', failures: 2, run_id: 'run-2', context: { status: 503 } })]);
    await followUps.resolve('acct-f', 'dropbox');
    await followUps.resolve('acct-f', 'close');
    expect((await followUps.listOpen()).filter((f) => f.account_id === 'acct-f')).toEqual([]);
  });

  it('counts every follow-up it records in CloudWatch Embedded Metric Format, by stage and by subject', async () => {
    const { metrics, lines } = capturedMetrics();
    const followUps = dynamodbFollowUps({ ...d, metrics });
    const error = { integration: 'clickup' as const, message: 'clickup: down', context: {} };
    await followUps.open('acct-m', 'run-1', error);
    await followUps.open('acct-m', 'run-2', error);
    await followUps.resolve('acct-m', 'clickup');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      _aws: { Timestamp: expect.any(Number), CloudWatchMetrics: [{ Namespace: 'agency-backend', Dimensions: [['Stage'], ['Stage', 'Subject']], Metrics: [{ Name: FOLLOW_UPS_RECORDED, Unit: 'Count' }] }] },
      Stage: 'test',
      Subject: 'clickup',
      [FOLLOW_UPS_RECORDED]: 1,
      accountId: 'acct-m',
      runId: 'run-2',
    });
  });

  it('counts nothing when the follow-up could not be written', async () => {
    const { metrics, lines } = capturedMetrics();
    const followUps = dynamodbFollowUps({ ...d, tables: { follow_ups: 'no-such-table' }, metrics });
    await expect(followUps.open('acct-x', 'run-1', { integration: 'close', message: 'close: down', context: {} })).rejects.toThrow();
    expect(lines).toEqual([]);
  });
});
