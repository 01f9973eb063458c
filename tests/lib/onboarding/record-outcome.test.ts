import { beforeEach, describe, expect, it } from 'vitest';
import type { StepReport } from '../../../lib/provisioning/outcomes.ts';
import { recordOutcome } from '../../../lib/onboarding/steps/record-outcome.ts';
import { fakeAccounts, fakeFollowUps, fakeRuns } from '../../support/fakes.ts';

let deps: { runs: ReturnType<typeof fakeRuns>; accounts: ReturnType<typeof fakeAccounts>['store']; lifecycle: ReturnType<typeof fakeAccounts>['lifecycle']; followUps: ReturnType<typeof fakeFollowUps> };
let accounts: ReturnType<typeof fakeAccounts>;
const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const report = (r: Partial<StepReport> & Pick<StepReport, 'integration' | 'outcome'>, n = 1): StepReport => ({ details: {}, at: at(n), ...r });
const input = { accountId: 'acct', runId: 'run', portalSlug: 'acme', attempt: 0, branches: [] };

beforeEach(async () => {
  accounts = fakeAccounts();
  await accounts.store.saveAccountDetails('acct', { company_name: 'Acme' });
  await accounts.store.claimMember({ email: 'a@acme.example', account_id: 'acct', role: 'owner' });
  deps = { runs: fakeRuns(), accounts: accounts.store, lifecycle: accounts.lifecycle, followUps: fakeFollowUps() };
});

const reportAll = async (overrides: StepReport[] = []) => {
  for (const integration of ['clickup', 'dropbox', 'resend', 'slack', 'close'] as const) {
    await deps.runs.recordStep('run', report({ integration, outcome: 'success', details: { ok: integration } }));
  }
  for (const r of overrides) await deps.runs.recordStep('run', r);
};

describe('recording the outcome', () => {
  it('stores a successful result, activates account and members', async () => {
    await reportAll();
    const answer = await recordOutcome(deps, input);
    expect(answer).toEqual({ success: true, failed: { clickup: false, dropbox: false, resend: false, slack: false, close: false } });
    const { result } = (await deps.runs.get('run'))!;
    expect(result).toEqual({
      success: true,
      accountId: 'acct',
      portalSlug: 'acme',
      integrations: { clickup: 'success', dropbox: 'success', resend: 'success', slack: 'success', close: 'success' },
      details: { clickup: { ok: 'clickup' }, dropbox: { ok: 'dropbox' }, resend: { ok: 'resend' }, slack: { ok: 'slack' }, close: { ok: 'close' } },
    });
    expect(accounts.accounts.get('acct')!.status).toBe('active');
    expect(accounts.members.of('acct', 'a@acme.example')!.status).toBe('active');
  });

  it('reports failures with their context, opens follow-ups, and resolves them when a later run succeeds', async () => {
    const error = { message: 'dropbox: create folders answered 503', context: { status: 503 } };
    await reportAll([report({ integration: 'dropbox', outcome: 'failed', error }, 2)]);
    const answer = await recordOutcome(deps, input);
    expect(answer.success).toBe(false);
    expect(answer.failed.dropbox).toBe(true);
    const { result } = (await deps.runs.get('run'))!;
    expect(result!.errors).toEqual([{ integration: 'dropbox', ...error }]);
    expect(accounts.accounts.get('acct')!.status).toBe('needs_attention');
    expect(await deps.followUps.listOpen()).toEqual([expect.objectContaining({ integration: 'dropbox', message: error.message, run_id: 'run' })]);

    await deps.runs.recordStep('run', report({ integration: 'dropbox', outcome: 'success' }, 3));
    await recordOutcome(deps, { ...input, attempt: 1 });
    expect((await deps.runs.get('run'))!.result!.success).toBe(true);
    expect(await deps.followUps.listOpen()).toEqual([]);
  });

  it('takes the latest report of an integration, whichever part made it', async () => {
    await reportAll([report({ integration: 'resend', part: 'after-storage', outcome: 'failed', error: { message: 'm', context: {} } }, 2)]);
    expect((await recordOutcome(deps, input)).failed.resend).toBe(true);
    // A later call of the step did everything that was owed: the earlier failure no longer stands.
    await deps.runs.recordStep('run', report({ integration: 'resend', outcome: 'success' }, 3));
    expect((await recordOutcome(deps, { ...input, attempt: 1 })).failed.resend).toBe(false);
  });

  it('is skipped only when every part was skipped', async () => {
    await reportAll([
      report({ integration: 'resend', outcome: 'skipped' }, 2),
      report({ integration: 'resend', part: 'after-storage', outcome: 'skipped' }, 2),
    ]);
    await recordOutcome(deps, input);
    expect((await deps.runs.get('run'))!.result!.integrations.resend).toBe('skipped');
  });

  it("falls back on the branch's caught error when a step could not report", async () => {
    for (const integration of ['clickup', 'resend', 'slack', 'close'] as const) await deps.runs.recordStep('run', report({ integration, outcome: 'success' }));
    const cause = JSON.stringify({ errorType: 'VendorUnavailable', errorMessage: 'dropbox: upload timed out', trace: [] });
    await recordOutcome(deps, { ...input, branches: [{ integration: 'dropbox', outcome: 'failed', error: { Error: 'VendorUnavailable', Cause: cause } }] });
    expect((await deps.runs.get('run'))!.result!.errors).toEqual([
      { integration: 'dropbox', message: 'dropbox: upload timed out', context: { error: 'VendorUnavailable' } },
    ]);
  });

  it("finds a part's caught error where the branch that ran it left it, under `then`", async () => {
    for (const integration of ['clickup', 'dropbox', 'slack', 'close'] as const) await deps.runs.recordStep('run', report({ integration, outcome: 'success' }));
    const branch = { integration: 'dropbox' as const, outcome: 'success' as const, then: { integration: 'resend' as const, outcome: 'failed' as const, error: { Error: 'States.Timeout' } } };
    const answer = await recordOutcome(deps, { ...input, branches: [[branch]] });
    expect(answer.failed).toMatchObject({ dropbox: false, resend: true });
    expect((await deps.runs.get('run'))!.result!.errors).toEqual([{ integration: 'resend', message: 'The resend step failed (States.Timeout)', context: { error: 'States.Timeout' } }]);
  });

  it('never lets an earlier attempt overwrite a later result', async () => {
    await reportAll();
    await recordOutcome(deps, { ...input, attempt: 2 });
    await deps.runs.recordStep('run', report({ integration: 'close', outcome: 'failed', error: { message: 'x', context: {} } }, 5));
    await recordOutcome(deps, { ...input, attempt: 1 });
    expect((await deps.runs.get('run'))!.result!.success).toBe(true);
  });
});
