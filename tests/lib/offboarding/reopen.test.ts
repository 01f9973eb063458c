import { beforeEach, describe, expect, it } from 'vitest';
import type { OnboardingIntake } from '../../../lib/onboarding/intake.ts';
import { reopenAccount, type ReopenDeps } from '../../../lib/offboarding/reopen.ts';
import { fakeAccounts } from '../../support/fakes.ts';
import { ACCOUNT, seedAccount, T0 } from './support.ts';

const at = new Date(T0.getTime() + 7 * 86_400_000);
let accounts: ReturnType<typeof fakeAccounts>;
let onboarded: { accountId: string; intake: OnboardingIntake; runKey: string }[];
let deps: ReopenDeps;

beforeEach(() => {
  accounts = fakeAccounts();
  onboarded = [];
  deps = {
    accounts: accounts.store,
    lifecycle: accounts.lifecycle,
    onboard: async (accountId, intake, runKey) => {
      onboarded.push({ accountId, intake, runKey });
      const runId = `run-${onboarded.length}`;
      return { accountId, runId, handle: { executionArn: `arn:exec:${runId}`, attempt: 0 } };
    },
    now: () => at,
  };
});

const closed = (fields = {}) =>
  seedAccount(accounts, {
    status: 'closed',
    closed_at: T0.toISOString(),
    onboarding_run_id: 'run-onboarding',
    location: 'Berlin',
    requested_plan: 'pro',
    offboarding: { run_id: 'run-off', trigger: 'request', reason: 'asked', requested_by: 'user-owner', requested_at: T0.toISOString(), not_before: T0.toISOString() },
    ...fields,
  });

describe('reopening a closed account', () => {
  it('onboards an onboarded account again with the details it kept, as a run of its own', async () => {
    await closed();
    const answer = await reopenAccount(deps, ACCOUNT, 'user-owner');
    expect(answer).toEqual({ status: 'provisioning', run: { accountId: ACCOUNT, runId: 'run-1', handle: { executionArn: 'arn:exec:run-1', attempt: 0 } } });
    const account = accounts.accounts.get(ACCOUNT)!;
    expect(account).toMatchObject({ status: 'provisioning', reopened_at: at.toISOString() });
    expect(account).not.toHaveProperty('offboarding');
    expect(account).not.toHaveProperty('closed_at');
    expect(onboarded).toEqual([
      {
        accountId: ACCOUNT,
        intake: expect.objectContaining({ email: 'ann@acme.example', companyName: 'Acme', location: 'Berlin', plan: 'pro' }),
        runKey: `reopened:${at.toISOString()}`,
      },
    ]);
  });

  it('makes a never-onboarded account active again, with no run', async () => {
    await closed({ onboarding_run_id: undefined });
    expect(await reopenAccount(deps, ACCOUNT, 'admin-key')).toEqual({ status: 'active' });
    expect(accounts.accounts.get(ACCOUNT)!.status).toBe('active');
    expect(onboarded).toEqual([]);
  });

  for (const status of ['offboarding', 'active', 'erased'] as const) {
    it(`refuses an account that is ${status}, changing nothing`, async () => {
      await closed({ status });
      await expect(reopenAccount(deps, ACCOUNT, 'user-owner')).rejects.toMatchObject({ code: 'account_not_closed' });
      expect(accounts.accounts.get(ACCOUNT)!.status).toBe(status);
      expect(onboarded).toEqual([]);
    });
  }

  it('refuses, starting no run, when the account changed between its read and the reopening', async () => {
    await closed();
    const racing: ReopenDeps = {
      ...deps,
      lifecycle: {
        reopen: async (...args) => {
          // An erasure lands first.
          accounts.accounts.set(ACCOUNT, { ...accounts.accounts.get(ACCOUNT)!, status: 'erased' });
          return accounts.lifecycle.reopen(...args);
        },
      },
    };
    await expect(reopenAccount(racing, ACCOUNT, 'user-owner')).rejects.toMatchObject({ code: 'account_not_closed' });
    expect(accounts.accounts.get(ACCOUNT)!.status).toBe('erased');
    expect(onboarded).toEqual([]);
  });
});
