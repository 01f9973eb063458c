// The onboarding stores against dynalite.
import { describe, expect, it } from 'vitest';
import { dynamodbFollowUps } from '../../../lib/provisioning/follow-ups.ts';
import { dynamodbLedger, remembered } from '../../../lib/provisioning/ledger.ts';
import type { OnboardingResult } from '../../../lib/onboarding/outcomes.ts';
import { dynamodbRuns } from '../../../lib/onboarding/runs.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const result = (success: boolean) => ({ success, accountId: 'a', portalSlug: 's', integrations: {}, details: {} }) as unknown as OnboardingResult;

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

describe('the provisioning ledger', () => {
  const entry = (accountId: string, resource: string, maker = 'run-1') => ({ accountId, resource, maker });

  it('makes a thing once and remembers it', async () => {
    const ledger = dynamodbLedger(d);
    let made = 0;
    const make = async () => ({ id: `x${++made}` });
    expect(await remembered(ledger, entry('acct', 'clickup#folder'), make)).toEqual({ id: 'x1' });
    expect(await remembered(ledger, entry('acct', 'clickup#folder', 'run-2'), make)).toEqual({ id: 'x1' });
    expect(await remembered(ledger, entry('other', 'clickup#folder'), make)).toEqual({ id: 'x2' });
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

  it('gives the claim back when making fails, so the next attempt of any run makes it at once', async () => {
    const ledger = dynamodbLedger(d);
    await expect(remembered(ledger, entry('acct-fail', 'slack#new-client', 'run-a'), () => Promise.reject(new Error('slack down')))).rejects.toThrow('slack down');
    expect(await remembered(ledger, entry('acct-fail', 'slack#new-client', 'run-b'), async () => ({ ts: '1' }), { waitMs: 0 })).toEqual({ ts: '1' });
  });

  it("lets a run take its own claim again (its step died mid-way), keeps other runs waiting, and lets a lapsed claim be taken over", async () => {
    const ledger = dynamodbLedger(d);
    expect(await ledger.claim('acct-dead', 'clickup#folder', 'run-a', 200)).toBe(true);
    const other = remembered(ledger, entry('acct-dead', 'clickup#folder', 'run-b'), async () => ({ id: 'f-b' }), { waitMs: 0 });
    await expect(other).rejects.toMatchObject({ name: 'VendorUnavailable', vendor: 'clickup' });
    expect(await ledger.claim('acct-dead', 'clickup#folder', 'run-a', 200)).toBe(true);
    await new Promise((r) => setTimeout(r, 250));
    expect(await remembered(ledger, entry('acct-dead', 'clickup#folder', 'run-b'), async () => ({ id: 'f-b' }), { waitMs: 0 })).toEqual({ id: 'f-b' });
    expect(await ledger.claim('acct-dead', 'clickup#folder', 'run-a', 200)).toBe(false);
  });
});

describe('follow-ups', () => {
  it('opens, counts repeated failures, and resolves', async () => {
    const followUps = dynamodbFollowUps(d);
    const error = { integration: 'dropbox' as const, message: 'dropbox: down', context: { status: 503 } };
    await followUps.open('acct-f', 'run-1', error);
    await followUps.open('acct-f', 'run-2', error);
    const open = (await followUps.listOpen()).filter((f) => f.account_id === 'acct-f');
    expect(open).toEqual([expect.objectContaining({ integration: 'dropbox', failures: 2, run_id: 'run-2', context: { status: 503 } })]);
    await followUps.resolve('acct-f', 'dropbox');
    await followUps.resolve('acct-f', 'close');
    expect((await followUps.listOpen()).filter((f) => f.account_id === 'acct-f')).toEqual([]);
  });
});
