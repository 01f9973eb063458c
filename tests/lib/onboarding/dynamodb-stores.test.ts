// The onboarding stores against dynalite.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../../lib/provisioning/outcomes.ts';
import { dynamodbRuns } from '../../../lib/provisioning/runs.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const result = (success: boolean) => ({ success, accountId: 'a', portalSlug: 's', integrations: {}, details: {} }) as unknown as RunResult;

describe('the run store', () => {
  it('begins once, keeps step reports per integration and part, and never lets an older attempt win', async () => {
    const runs = dynamodbRuns(d);
    await runs.begin('run-a', 'acct');
    await runs.begin('run-a', 'other');
    expect(await runs.get('run-a')).toMatchObject({ account_id: 'acct', status: 'running' });

    await runs.recordStep('run-a', { integration: 'resend', outcome: 'success', details: { sent: ['welcome'] }, at: 't1' });
    await runs.recordStep('run-a', { integration: 'resend', part: 'after-storage', outcome: 'failed', details: {}, at: 't2' });
    await runs.recordStep('run-a', { integration: 'resend', outcome: 'success', details: { sent: ['welcome', 'x'] }, at: 't3' });
    const steps = await runs.steps('run-a');
    expect(steps).toHaveLength(2);
    expect(steps).toContainEqual(expect.objectContaining({ integration: 'resend', details: { sent: ['welcome', 'x'] } }));

    await runs.saveResult('run-a', 'acct', 1, result(true));
    await runs.saveResult('run-a', 'acct', 0, result(false));
    expect(await runs.get('run-a')).toMatchObject({ attempt: 1, status: 'succeeded', result: { success: true } });
  });
});
