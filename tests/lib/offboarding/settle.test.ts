// How a run's recorded outcome settles the account's status when an
// onboarding and an offboarding of one account overlap (record-outcome's
// settle, per workflow of lib/provisioning/registry.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import type { StepReport } from '../../../lib/provisioning/outcomes.ts';
import { recordOutcome } from '../../../lib/onboarding/steps/record-outcome.ts';
import { workflows } from '../../../lib/provisioning/registry.ts';
import { fakeAccounts, fakeFollowUps, fakeRuns } from '../../support/fakes.ts';
import { ACCOUNT, seedAccount, T0 } from './support.ts';

const OFFBOARDING_RUN = 'run-offboarding';
const ONBOARDING_RUN = 'run-onboarding';
const at = new Date(T0.getTime() + 3_600_000);

let accounts: ReturnType<typeof fakeAccounts>;
let runs: ReturnType<typeof fakeRuns>;
let deps: Parameters<typeof recordOutcome>[0];
beforeEach(async () => {
  accounts = fakeAccounts();
  runs = fakeRuns();
  deps = { runs, accounts: accounts.store, lifecycle: accounts.lifecycle, followUps: fakeFollowUps(), now: () => at };
  await seedAccount(accounts, { status: 'provisioning', onboarding_run_id: ONBOARDING_RUN });
  await accounts.store.claimMember({ email: 'ann@acme.example', account_id: ACCOUNT, role: 'owner' });
});

const reportAll = async (runId: string, failing?: StepReport['integration']) => {
  for (const integration of workflows.offboarding.integrations) {
    const failed = integration === failing;
    await runs.recordStep(runId, {
      integration,
      outcome: failed ? 'failed' : 'success',
      details: {},
      at: T0.toISOString(),
      ...(failed ? { error: { message: `${integration} answered 503`, context: {} } } : {}),
    });
  }
};
const record = (runId: string, workflow?: 'offboarding') =>
  recordOutcome(deps, { accountId: ACCOUNT, runId, portalSlug: 'acme', attempt: 0, branches: [], ...(workflow ? { workflow, integrations: workflows[workflow].integrations } : {}) });

const beginOffboarding = async () => {
  accounts.accounts.set(ACCOUNT, {
    ...accounts.accounts.get(ACCOUNT)!,
    offboarding: { run_id: OFFBOARDING_RUN, trigger: 'request', reason: 'asked', requested_by: 'admin-key', requested_at: T0.toISOString(), not_before: T0.toISOString() },
  });
  expect(await accounts.lifecycle.begin(ACCOUNT, OFFBOARDING_RUN)).toBe(true);
};

describe("settling the account's status after a run", () => {
  it('leaves an account offboarding when its onboarding run records its outcome after the offboarding began', async () => {
    await beginOffboarding();
    await reportAll(ONBOARDING_RUN);
    expect((await record(ONBOARDING_RUN)).success).toBe(true);
    expect(accounts.accounts.get(ACCOUNT)!.status).toBe('offboarding');
    // The members are not made active by it either.
    expect(accounts.members.of(ACCOUNT, 'ann@acme.example')!.status).toBe('provisioning');
    expect(runs.records.get(ONBOARDING_RUN)!.result!.success).toBe(true);
  });

  it("closes the account when the offboarding run succeeded, with when, and leaves the members' records", async () => {
    await beginOffboarding();
    await reportAll(OFFBOARDING_RUN);
    expect((await record(OFFBOARDING_RUN, 'offboarding')).success).toBe(true);
    expect(accounts.accounts.get(ACCOUNT)).toMatchObject({ status: 'closed', closed_at: at.toISOString() });
    expect(accounts.members.of(ACCOUNT, 'ann@acme.example')!.status).toBe('provisioning');
  });

  it('leaves the account offboarding, not closed, when an integration of the offboarding run failed', async () => {
    await beginOffboarding();
    await reportAll(OFFBOARDING_RUN, 'dropbox');
    const answer = await record(OFFBOARDING_RUN, 'offboarding');
    expect(answer).toMatchObject({ success: false, failed: { dropbox: true, clickup: false } });
    const account = accounts.accounts.get(ACCOUNT)!;
    expect(account.status).toBe('offboarding');
    expect(account.closed_at).toBeUndefined();
    expect(await deps.followUps.listOpen()).toEqual([expect.objectContaining({ integration: 'dropbox', run_id: OFFBOARDING_RUN })]);
  });

  it('closes nothing when an offboarding run records its outcome on an account that is not offboarding (reopened meanwhile)', async () => {
    await reportAll(OFFBOARDING_RUN);
    await record(OFFBOARDING_RUN, 'offboarding');
    expect(accounts.accounts.get(ACCOUNT)).toMatchObject({ status: 'provisioning' });
    expect(accounts.accounts.get(ACCOUNT)!.closed_at).toBeUndefined();
  });
});
