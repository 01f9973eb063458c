// The contract every integration step keeps, over the run store's fake.
import { describe, expect, it } from 'vitest';
import { VendorError } from '../../../lib/errors.ts';
import { integrationStep, type StepInput } from '../../../lib/provisioning/integration-step.ts';
import { fakeRuns } from '../../support/fakes.ts';

const input: StepInput = { accountId: 'acct-1', email: 'ann@acme.example', runId: 'run-1', portalSlug: 'acme' };

describe('every integration step', () => {
  it('reports its outcome for the run', async () => {
    const runs = fakeRuns();
    const answer = await integrationStep('slack', runs, async () => ({ outcome: 'success', details: { posted: ['x'] } }))(input);
    expect(answer).toEqual({ integration: 'slack', outcome: 'success' });
    expect(await runs.steps('run-1')).toEqual([expect.objectContaining({ integration: 'slack', outcome: 'success', details: { posted: ['x'] } })]);
  });

  it('reports a failure with a client-safe message and context, and rethrows it', async () => {
    const runs = fakeRuns();
    const failure = new VendorError('dropbox', 'dropbox: create folders answered 503 (gave up after 4 attempts)', {
      transient: true,
      operation: 'create folders',
      status: 503,
    });
    const step = integrationStep('dropbox', runs, async () => {
      throw failure;
    });
    await expect(step({ ...input, part: 'tree' })).rejects.toBe(failure);
    const [report] = await runs.steps('run-1');
    expect(report).toMatchObject({
      integration: 'dropbox',
      part: 'tree',
      outcome: 'failed',
      error: { message: failure.message, context: { vendor: 'dropbox', transient: true, status: 503, operation: 'create folders' } },
    });
  });

  it('does not pass on the text of an unexpected error', async () => {
    const runs = fakeRuns();
    await expect(integrationStep('close', runs, async () => Promise.reject(new TypeError('secret internals')))(input)).rejects.toThrow();
    expect((await runs.steps('run-1'))[0]!.error).toEqual({ message: 'The close step failed unexpectedly', context: { errorType: 'TypeError' } });
  });

  it('holds a retry for an operator on the first pass, and works after a redrive', async () => {
    const runs = fakeRuns();
    let ran = 0;
    const step = integrationStep('close', runs, async () => {
      ran++;
      return { outcome: 'success', details: {} };
    });
    await expect(step({ ...input, hold: true, redriveCount: 0 })).rejects.toMatchObject({ name: 'AwaitingRedrive' });
    expect(ran).toBe(0);
    expect(await runs.steps('run-1')).toEqual([]);
    await step({ ...input, hold: true, redriveCount: 1 });
    expect(ran).toBe(1);
  });
});
