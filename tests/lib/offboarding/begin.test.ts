import { beforeEach, describe, expect, it } from 'vitest';
import type { Invitation } from '../../../lib/accounts/invitations.ts';
import type { Offboarding } from '../../../lib/accounts/lifecycle.ts';
import { beginOffboarding, type BeginDeps } from '../../../lib/offboarding/begin.ts';
import { fakeInvitations } from '../../support/account-fakes.ts';
import { fakeAccounts, fakeRuns } from '../../support/fakes.ts';
import { ACCOUNT, seedAccount, T0 } from './support.ts';

const RUN = 'acct-1-offboarding';
const offboarding = (trigger: Offboarding['trigger'], runId = RUN): Offboarding => ({
  run_id: runId,
  trigger,
  reason: trigger === 'request' ? 'asked' : 'The subscription ended',
  requested_by: trigger === 'request' ? 'user-owner' : 'stripe',
  requested_at: T0.toISOString(),
  not_before: T0.toISOString(),
});
const invitation = (id: string, fields: Partial<Invitation> = {}): Invitation => ({
  id,
  account_id: ACCOUNT,
  email: `${id}@example.com`,
  role: 'member',
  status: 'pending',
  invited_by: { kind: 'service' },
  created_at: T0.toISOString(),
  expires_at: T0.getTime() / 1000 + 86_400,
  ...fields,
});

let accounts: ReturnType<typeof fakeAccounts>;
let invitations: ReturnType<typeof fakeInvitations>;
let runs: ReturnType<typeof fakeRuns>;
let deps: BeginDeps;
const at = new Date(T0.getTime() + 3_600_000);

beforeEach(async () => {
  accounts = fakeAccounts();
  invitations = fakeInvitations(() => T0);
  runs = fakeRuns();
  deps = { accounts: accounts.store, lifecycle: accounts.lifecycle, invitations, runs, now: () => at };
  for (const i of [
    invitation('open-1'),
    invitation('open-2', { role: 'admin' }),
    invitation('used', { status: 'accepted', accepted_at: T0.toISOString() }),
    invitation('elsewhere', { account_id: 'acct-2' }),
  ]) {
    invitations.rows.set(i.id, i);
  }
});

const statuses = () => Object.fromEntries([...invitations.rows.values()].map((i) => [i.id, [i.status, i.revoked_by]]));
const untouched = { 'open-1': ['pending', undefined], 'open-2': ['pending', undefined], used: ['accepted', undefined], elsewhere: ['pending', undefined] };

describe('beginning an offboarding', () => {
  it("moves the account to offboarding and revokes each of its pending invitations, the account's closing being the reason", async () => {
    await seedAccount(accounts, { offboarding: offboarding('request') });
    expect(await beginOffboarding(deps, { accountId: ACCOUNT, runId: RUN })).toEqual({ portalSlug: 'acme', proceed: true });
    expect(accounts.accounts.get(ACCOUNT)!.status).toBe('offboarding');
    expect(statuses()).toEqual({ 'open-1': ['revoked', 'account-closed'], 'open-2': ['revoked', 'account-closed'], used: ['accepted', undefined], elsewhere: ['pending', undefined] });
    expect(invitations.rows.get('open-1')!.revoked_at).toBe(at.toISOString());
    // The run goes on: no result is recorded yet.
    expect(runs.records.size).toBe(0);
  });

  it('proceeds again, harmlessly, when the step is retried after it began', async () => {
    await seedAccount(accounts, { offboarding: offboarding('request') });
    await beginOffboarding(deps, { accountId: ACCOUNT, runId: RUN });
    const before = structuredClone([...invitations.rows.values()]);
    const account = accounts.accounts.get(ACCOUNT)!;
    deps.now = () => new Date(at.getTime() + 60_000);
    expect(await beginOffboarding(deps, { accountId: ACCOUNT, runId: RUN })).toEqual({ portalSlug: 'acme', proceed: true });
    expect([...invitations.rows.values()]).toEqual(before);
    expect(accounts.accounts.get(ACCOUNT)).toMatchObject({ status: 'offboarding', offboarding: account.offboarding });
  });

  it("proceeds with a subscription's offboarding while the subscription stays ended", async () => {
    await seedAccount(accounts, { subscription_status: 'canceled', offboarding: offboarding('subscription') });
    expect((await beginOffboarding(deps, { accountId: ACCOUNT, runId: RUN })).proceed).toBe(true);
    expect(accounts.accounts.get(ACCOUNT)!.status).toBe('offboarding');
  });

  const stops: [string, Parameters<typeof seedAccount>[1], RegExp][] = [
    ['the account records another offboarding', { offboarding: offboarding('request', 'another-run') }, /no longer records this offboarding/],
    ['the account records none (the subscription came back)', {}, /no longer records this offboarding/],
    ["the subscription is live again though the record stayed", { subscription_status: 'active', offboarding: offboarding('subscription') }, /subscription is live again/],
    ['the account is closed already', { status: 'closed', offboarding: offboarding('request') }, /not open any more/],
  ];
  for (const [when, fields, why] of stops) {
    it(`stops, changing nothing and saving why, when ${when}`, async () => {
      const seeded = await seedAccount(accounts, fields);
      expect(await beginOffboarding(deps, { accountId: ACCOUNT, runId: RUN })).toEqual({ portalSlug: 'acme', proceed: false });
      expect(accounts.accounts.get(ACCOUNT)!.status).toBe(seeded.status);
      expect(accounts.accounts.get(ACCOUNT)!.offboarding).toEqual(seeded.offboarding);
      expect(statuses()).toEqual(untouched);
      const record = runs.records.get(RUN)!;
      expect(record).toMatchObject({ account_id: ACCOUNT, status: 'succeeded', result: { success: true, integrations: {} } });
      expect(record.result!.stopped).toMatch(why);
    });
  }

  it('fails (for the state machine to retry) when the account does not exist', async () => {
    await expect(beginOffboarding(deps, { accountId: 'acct-none', runId: RUN })).rejects.toThrow('does not exist');
    expect(runs.records.size).toBe(0);
  });
});
