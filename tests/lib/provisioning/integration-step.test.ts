// The contract every integration step keeps, over the run store's fake.
import { describe, expect, it } from 'vitest';
import { VendorError } from '../../../lib/errors.ts';
import { MustWait, pacing, type StepPacing } from '../../../lib/integrations/pacing.ts';
import { integrationStep, type StepInput } from '../../../lib/provisioning/integration-step.ts';
import { fakePaceSchedule, fakeRuns } from '../../support/fakes.ts';

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

  it('answers "waiting" with when and its bookings, and reports it, when its calls must wait: no failure, nothing thrown', async () => {
    const runs = fakeRuns();
    const until = Date.parse('2030-01-01T00:10:00Z');
    const bookings = [{ vendor: 'clickup', key: 'clickup#k', first: until, intervalMs: 600, burstMs: 0, count: 15, used: 0 }];
    const step = integrationStep('clickup', runs, async () => {
      throw new MustWait('clickup', until, bookings);
    });
    expect(await step(input)).toEqual({ integration: 'clickup', outcome: 'waiting', vendor: 'clickup', until: '2030-01-01T00:10:00.000Z', bookings });
    expect(await runs.steps('run-1')).toEqual([
      expect.objectContaining({ integration: 'clickup', outcome: 'waiting', details: { vendor: 'clickup', until: '2030-01-01T00:10:00.000Z' } }),
    ]);
  });

  it('waits out, as long as the vendor said, a throttle that reached it unpaced', async () => {
    const runs = fakeRuns();
    const step = integrationStep('close', runs, async () => {
      throw new VendorError('close', 'close: find the lead was throttled (429)', { transient: true, operation: 'find', status: 429, retryAfterMs: 90_000 });
    });
    const before = Date.now();
    const answer = await step(input);
    expect(answer).toMatchObject({ integration: 'close', outcome: 'waiting', vendor: 'close' });
    const until = Date.parse((answer as { until: string }).until);
    expect(until).toBeGreaterThanOrEqual(before + 90_000);
    expect(until).toBeLessThan(Date.now() + 92_000);
  });

  it('goes on with the bookings of its own waiting answer, and of nobody else\'s', async () => {
    const seen: (StepPacing | undefined)[] = [];
    const real = pacing({ schedule: fakePaceSchedule() });
    const spy = { of: real.of, within: <T,>(step: StepPacing, work: () => Promise<T>) => (seen.push(step), real.within(step, work)) };
    const step = integrationStep('resend', fakeRuns(), async () => ({ outcome: 'success', details: {} }), { pacing: spy, calls: { resend: 3 } });
    const bookings = [{ vendor: 'resend', key: 'resend#k', first: 0, intervalMs: 200, burstMs: 0, count: 3, used: 1 }];
    const waiting = { integration: 'resend', outcome: 'waiting' as const, vendor: 'resend', until: '2030-01-01T00:00:00Z', bookings };
    await step({ ...input, previous: waiting });
    await step({ ...input, part: 'after-storage', previous: waiting });
    await step({ ...input, previous: { ...waiting, integration: 'clickup' } });
    expect(seen).toEqual([
      { bookings, calls: { resend: 3 } },
      // A part books its calls one at a time, and the waiting answer was not its own.
      { bookings: undefined, calls: undefined },
      { bookings: undefined, calls: { resend: 3 } },
    ]);
  });
});
