// What the offboarding use-case tests share: an account in the fakes, and a
// workflow that records what it was asked to start.
import type { Account } from '../../../lib/accounts/accounts.ts';
import type { OffboardingDeps } from '../../../lib/offboarding/offboard.ts';
import type { Workflow } from '../../../lib/workflows/workflow.ts';
import { fakeAccounts, fakeRuns } from '../../support/fakes.ts';

export interface StartCall {
  runId: string;
  input: Record<string, unknown>;
  seenBefore?: boolean;
}

/** The offboarding state machine: each startOrResume recorded; `failNext` makes the next one throw (a start that failed after its record was written). */
export function fakeOffboardingWorkflow() {
  const calls: StartCall[] = [];
  let failing = 0;
  const workflow: Pick<Workflow, 'startOrResume'> & { calls: StartCall[]; failNext(): void } = {
    calls,
    failNext: () => void failing++,
    async startOrResume(runId, input, options) {
      calls.push({ runId, input, seenBefore: options?.seenBefore });
      if (failing > 0) {
        failing--;
        throw new Error('StartExecution throttled');
      }
      return { executionArn: `arn:exec:${runId}`, attempt: 0 };
    },
  };
  return workflow;
}

export const ACCOUNT = 'acct-1';
export const T0 = new Date('2026-03-01T10:00:00.000Z');
export const GRACE_SECONDS = 14 * 86_400;

/** An account in the fakes, with the fields given; `status` active unless said. */
export async function seedAccount(accounts: ReturnType<typeof fakeAccounts>, fields: Partial<Account> = {}): Promise<Account> {
  await accounts.store.saveAccountDetails(ACCOUNT, { company_name: 'Acme', contact_email: 'ann@acme.example' });
  const account: Account = { ...accounts.accounts.get(ACCOUNT)!, status: 'active', portal_slug: 'acme', dashboard_slug: 'acme', ...fields };
  accounts.accounts.set(ACCOUNT, account);
  return account;
}

/** The request and subscription use cases' deps on fakes, with a clock the test moves and whether the onboarding run still runs. */
export function offboardingFakes() {
  const accounts = fakeAccounts();
  const runs = fakeRuns();
  const workflow = fakeOffboardingWorkflow();
  const clock = { now: T0 };
  const onboarding = { running: new Set<string>() };
  const deps: OffboardingDeps = {
    accounts: accounts.store,
    lifecycle: accounts.lifecycle,
    runs,
    workflow,
    onboardingRunning: async (runId) => onboarding.running.has(runId),
    graceSeconds: GRACE_SECONDS,
    now: () => clock.now,
  };
  return { deps, accounts, runs, workflow, clock, onboarding };
}
