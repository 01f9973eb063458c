// Batches of onboardings against in-memory ports: rows refused by line,
// started in order, a row that cannot start set aside, and the view.
import { describe, expect, it } from 'vitest';
import { DomainError, NotFound } from '../../../lib/errors.ts';
import { batchView, startBatchRows, submitBatch, type BatchRecord, type BatchRow, type BatchStore } from '../../../lib/onboarding/batches.ts';
import { INTEGRATIONS } from '../../../lib/onboarding/outcomes.ts';
import { integrations } from '../../../lib/provisioning/registry.ts';
import { fakeRuns } from '../../support/fakes.ts';

function fakeBatches(): BatchStore & { all: Map<string, { batch: BatchRecord; rows: BatchRow[] }> } {
  const all = new Map<string, { batch: BatchRecord; rows: BatchRow[] }>();
  return {
    all,
    create: async (batch, rows) => void all.set(batch.batch_id, { batch, rows: structuredClone(rows) }),
    get: async (id) => all.get(id)?.batch,
    rows: async (id) => structuredClone(all.get(id)?.rows ?? []),
    queued: async (id, limit) => structuredClone((all.get(id)?.rows ?? []).filter((r) => r.state === 'queued').slice(0, limit)),
    async settle(id, line, outcome) {
      const row = all.get(id)!.rows.find((r) => r.line === line)!;
      if (row.state === 'queued') Object.assign(row, Object.fromEntries(Object.entries(outcome).filter(([, v]) => v !== undefined)));
    },
  };
}

const row = (line: number, value: Record<string, unknown>) => ({ line, value });

describe('a batch of onboardings', () => {
  it('takes the valid rows in order, refuses the others by line (an address named twice too), and starts its workflow', async () => {
    const batches = fakeBatches();
    const started: string[] = [];
    const given = {
      rows: [
        row(2, { email: 'A@x.co', companyName: 'A' }),
        row(3, { email: 'b@x.co' }),
        row(4, { email: 'c@x.co', companyName: 'C', timezone: 'Mars/Base' }),
        row(5, { email: 'a@x.co', companyName: 'A again' }),
        row(6, { email: 'd@x.co', company: 'D' }),
      ],
      invalid: [{ line: 7, errors: [{ path: '/email', message: 'must match format "email"' }] }],
    };
    const answer = await submitBatch({ batches, queue: { start: async (id) => void started.push(id) }, newId: () => 'batch-1' }, 'service', given);
    expect(answer).toEqual({
      batchId: 'batch-1',
      queued: 2,
      invalid: [
        { line: 3, errors: [expect.objectContaining({ path: '/companyName' })] },
        { line: 4, errors: [{ path: '/timezone', message: 'must be an IANA time zone, e.g. Europe/Berlin' }] },
        { line: 5, errors: [{ path: '/email', message: 'is on line 2 already' }] },
        { line: 7, errors: [{ path: '/email', message: 'must match format "email"' }] },
      ],
    });
    expect(started).toEqual(['batch-1']);
    expect(batches.all.get('batch-1')!.rows.map((r) => [r.line, r.intake.email, r.intake.companyName, r.state])).toEqual([
      [2, 'a@x.co', 'A', 'queued'],
      [6, 'd@x.co', 'D', 'queued'],
    ]);
  });

  it('refuses a batch with no valid row, storing and starting nothing', async () => {
    const batches = fakeBatches();
    const error = await submitBatch({ batches, queue: { start: async () => expect.fail('started') } }, 'service', { rows: [row(1, { email: 'a@x.co' })], invalid: [] }).catch((e) => e);
    expect(error).toMatchObject({ code: 'no_valid_rows', details: [expect.objectContaining({ path: '/rows/1/companyName' })] });
    expect(batches.all.size).toBe(0);
  });

  it('starts queued rows a few at a time in line order, sets aside one that cannot start, and says when none is left', async () => {
    const batches = fakeBatches();
    const rows = Array.from({ length: 5 }, (_, i) => row(i + 2, { email: `r${i}@x.co`, companyName: `R${i}` }));
    await submitBatch({ batches, queue: { start: async () => undefined }, newId: () => 'b' }, 'service', { rows, invalid: [] });
    const order: string[] = [];
    const startRow = async (intake: { email: string }) => {
      if (intake.email === 'r1@x.co') throw new (class extends DomainError { readonly code = 'held'; })('This address is held elsewhere');
      order.push(intake.email);
      return { runId: `run-${intake.email}`, accountId: `acct-${intake.email}` };
    };
    expect(await startBatchRows({ batches, startRow }, 'b', 2)).toEqual({ started: 1, remaining: true });
    expect(await startBatchRows({ batches, startRow }, 'b', 2)).toEqual({ started: 2, remaining: true });
    expect(await startBatchRows({ batches, startRow }, 'b', 2)).toEqual({ started: 1, remaining: false });
    expect(order).toEqual(['r0@x.co', 'r2@x.co', 'r3@x.co', 'r4@x.co']);
    expect(batches.all.get('b')!.rows[1]).toMatchObject({ state: 'not_started', error: 'This address is held elsewhere' });
    // Anything else fails the step, for its state machine to retry; the row stays queued.
    const broken = fakeBatches();
    await submitBatch({ batches: broken, queue: { start: async () => undefined }, newId: () => 'x' }, 'service', { rows: rows.slice(0, 1), invalid: [] });
    await expect(startBatchRows({ batches: broken, startRow: async () => Promise.reject(new Error('DynamoDB')) }, 'x')).rejects.toThrow('DynamoDB');
    expect(broken.all.get('x')!.rows[0]!.state).toBe('queued');
  });

  it("counts its rows by state and estimates the end from the busiest vendor's calls still to make", async () => {
    const batches = fakeBatches();
    const runs = fakeRuns();
    const rows = Array.from({ length: 4 }, (_, i) => row(i + 1, { email: `v${i}@x.co`, companyName: `V${i}` }));
    await submitBatch({ batches, queue: { start: async () => undefined }, newId: () => 'v' }, 'service', { rows, invalid: [] });
    // Row 1 done, row 2 waiting for ClickUp with the rest done, row 3 held; row 4 still queued.
    for (const [line, runId] of [[1, 'r1'], [2, 'r2'], [3, 'r3']] as const) {
      await batches.settle('v', line, { state: 'started', run_id: runId, account_id: `a${line}` });
      await runs.begin(runId, `a${line}`);
    }
    const result = (success: boolean) => ({ success, accountId: 'a', portalSlug: 's', integrations: {}, details: {} });
    await runs.saveResult('r1', 'a1', 0, result(true));
    await runs.saveResult('r3', 'a3', 0, result(false));
    const at = '2030-01-01T00:00:00.000Z';
    for (const integration of ['dropbox', 'resend', 'slack', 'close'] as const) await runs.recordStep('r2', { integration, outcome: 'success', details: {}, at });
    await runs.recordStep('r2', { integration: 'clickup', outcome: 'waiting', details: { vendor: 'clickup', until: '2030-01-01T00:05:00.000Z' }, at });
    const now = new Date('2030-01-01T00:00:00Z');
    const rates = { clickup: { limit: 100, windowSeconds: 60 }, resend: { limit: 5, windowSeconds: 1 }, slack: { limit: 1, windowSeconds: 1 }, close: { limit: 20, windowSeconds: 1 }, dropbox: null };
    const view = await batchView({ batches, runs, integrations, workflow: INTEGRATIONS, rates, now: () => now }, 'v');
    expect(view.counts).toEqual({ queued: 1, not_started: 0, running: 0, waiting: 1, done: 1, held: 1 });
    expect(view.items.map((i) => [i.line, i.state, i.runId])).toEqual([[1, 'done', 'r1'], [2, 'waiting', 'r2'], [3, 'held', 'r3'], [4, 'queued', undefined]]);
    // ClickUp is the busiest: 15 calls for row 4 and 15 for row 2, at 60 s / 95 apart.
    expect(Date.parse(view.estimatedCompletion!) - now.getTime()).toBeCloseTo((30 * 60_000) / 95, -1);
    await expect(batchView({ batches, runs, integrations, workflow: INTEGRATIONS, rates }, 'missing')).rejects.toBeInstanceOf(NotFound);
  });
});
