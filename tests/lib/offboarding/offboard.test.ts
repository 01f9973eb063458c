import { beforeEach, describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '../../../lib/errors.ts';
import { followSubscription, OFFBOARDING_WORKFLOW, requestOffboarding } from '../../../lib/offboarding/offboard.ts';
import { ACCOUNT, GRACE_SECONDS, offboardingFakes, seedAccount, T0 } from './support.ts';

let f: ReturnType<typeof offboardingFakes>;
beforeEach(() => {
  f = offboardingFakes();
});

const ask = { reason: 'The client asked to leave', by: 'user-owner' };
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const ended = (subscriptionId = 'sub_1', at = T0) => ({ subscriptionId, live: false, at: at.getTime() / 1000 });

describe('asking for an offboarding', () => {
  it('records it on the account, begins its run and starts it, due at once', async () => {
    await seedAccount(f.accounts);
    const answer = await requestOffboarding(f.deps, ACCOUNT, ask);
    expect(answer).toMatchObject({ accountId: ACCOUNT, status: 'scheduled', notBefore: T0.toISOString(), handle: { executionArn: `arn:exec:${answer.runId}` } });
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toEqual({
      run_id: answer.runId,
      trigger: 'request',
      reason: ask.reason,
      requested_by: ask.by,
      requested_at: T0.toISOString(),
      not_before: T0.toISOString(),
    });
    expect(f.runs.records.get(answer.runId)).toMatchObject({ account_id: ACCOUNT, status: 'running', workflow: OFFBOARDING_WORKFLOW });
    expect(f.workflow.calls).toEqual([
      { runId: answer.runId, input: { accountId: ACCOUNT, runId: answer.runId, email: 'ann@acme.example', notBefore: T0.toISOString() }, seenBefore: false },
    ]);
    // Taking back only begins in the run: the account is still open.
    expect(f.accounts.accounts.get(ACCOUNT)!.status).toBe('active');
  });

  it('answers a second request with the same run, scheduling nothing new', async () => {
    await seedAccount(f.accounts);
    const first = await requestOffboarding(f.deps, ACCOUNT, ask);
    const recorded = f.accounts.accounts.get(ACCOUNT)!.offboarding;
    f.clock.now = later(60);
    const second = await requestOffboarding(f.deps, ACCOUNT, { reason: 'again', by: 'admin-key' });
    expect(second.runId).toBe(first.runId);
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toEqual(recorded);
    expect([...f.runs.records.keys()]).toEqual([first.runId]);
    // Joined, not started anew: the state machine is told it saw this run before.
    expect(f.workflow.calls.map((c) => [c.runId, c.seenBefore])).toEqual([
      [first.runId, false],
      [first.runId, true],
    ]);
  });

  it('answers with the run it is in once the account is offboarding', async () => {
    await seedAccount(f.accounts);
    const first = await requestOffboarding(f.deps, ACCOUNT, ask);
    await f.accounts.lifecycle.begin(ACCOUNT, first.runId);
    expect(await requestOffboarding(f.deps, ACCOUNT, ask)).toMatchObject({ runId: first.runId, status: 'offboarding' });
  });

  it("replaces a subscription's offboarding still waiting out its grace period: a new run, begun now", async () => {
    await seedAccount(f.accounts, { subscription_status: 'canceled' });
    await followSubscription(f.deps, ACCOUNT, ended());
    const waiting = f.accounts.accounts.get(ACCOUNT)!.offboarding!;
    expect(waiting.trigger).toBe('subscription');

    f.clock.now = later(86_400);
    const answer = await requestOffboarding(f.deps, ACCOUNT, ask);
    expect(answer.runId).not.toBe(waiting.run_id);
    expect(answer).toMatchObject({ status: 'scheduled', notBefore: later(86_400).toISOString() });
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toMatchObject({ run_id: answer.runId, trigger: 'request', requested_by: ask.by });
    expect(f.workflow.calls.map((c) => c.runId)).toEqual([waiting.run_id, answer.runId]);
  });

  it("does not replace a subscription's offboarding whose grace period is over: it is the answer", async () => {
    await seedAccount(f.accounts, { subscription_status: 'canceled' });
    await followSubscription(f.deps, ACCOUNT, ended());
    const due = f.accounts.accounts.get(ACCOUNT)!.offboarding!;
    f.clock.now = later(GRACE_SECONDS + 1);
    const answer = await requestOffboarding(f.deps, ACCOUNT, ask);
    expect(answer.runId).toBe(due.run_id);
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toEqual(due);
  });

  it('refuses while the account is still being onboarded, recording nothing', async () => {
    await seedAccount(f.accounts, { status: 'provisioning', onboarding_run_id: 'onboarding-run' });
    f.onboarding.running.add('onboarding-run');
    const refused = requestOffboarding(f.deps, ACCOUNT, ask);
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toMatchObject({ code: 'onboarding_running' });
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toBeUndefined();
    expect(f.runs.records.size).toBe(0);
    expect(f.workflow.calls).toEqual([]);

    // Once that run has finished, the same request goes ahead.
    f.onboarding.running.delete('onboarding-run');
    expect((await requestOffboarding(f.deps, ACCOUNT, ask)).status).toBe('scheduled');
  });

  it('answers a closed account with the run that closed it, starting nothing', async () => {
    await seedAccount(f.accounts);
    const first = await requestOffboarding(f.deps, ACCOUNT, ask);
    await f.accounts.lifecycle.begin(ACCOUNT, first.runId);
    await f.accounts.lifecycle.transition(ACCOUNT, ['offboarding'], 'closed', { closed_at: T0.toISOString() });
    const calls = f.workflow.calls.length;
    const answer = await requestOffboarding(f.deps, ACCOUNT, ask);
    expect(answer).toEqual({ accountId: ACCOUNT, runId: first.runId, status: 'closed', notBefore: T0.toISOString() });
    expect(f.workflow.calls).toHaveLength(calls);
  });

  it('refuses a closed account that records no offboarding, and one that does not exist', async () => {
    await seedAccount(f.accounts, { status: 'closed' });
    await expect(requestOffboarding(f.deps, ACCOUNT, ask)).rejects.toMatchObject({ code: 'account_closed' });
    await expect(requestOffboarding(f.deps, 'acct-none', ask)).rejects.toBeInstanceOf(NotFound);
    expect(f.workflow.calls).toEqual([]);
  });

  it('starts, on the next request, a run whose record was written but whose start failed', async () => {
    await seedAccount(f.accounts);
    f.workflow.failNext();
    await expect(requestOffboarding(f.deps, ACCOUNT, ask)).rejects.toThrow('throttled');
    const recorded = f.accounts.accounts.get(ACCOUNT)!.offboarding!;
    expect(f.runs.records.get(recorded.run_id)?.status).toBe('running');

    f.clock.now = later(5);
    const answer = await requestOffboarding(f.deps, ACCOUNT, ask);
    expect(answer).toMatchObject({ runId: recorded.run_id, status: 'scheduled', handle: { executionArn: `arn:exec:${recorded.run_id}` } });
    expect(f.workflow.calls.map((c) => c.runId)).toEqual([recorded.run_id, recorded.run_id]);
  });
});

describe("following the account's subscription", () => {
  it('schedules the offboarding for the end of the grace period when the subscription ends', async () => {
    await seedAccount(f.accounts, { subscription_status: 'canceled' });
    await followSubscription(f.deps, ACCOUNT, ended('sub_1', later(-3600)));
    const recorded = f.accounts.accounts.get(ACCOUNT)!.offboarding!;
    const notBefore = new Date(later(-3600).getTime() + GRACE_SECONDS * 1000).toISOString();
    expect(recorded).toMatchObject({ trigger: 'subscription', requested_by: 'stripe', requested_at: later(-3600).toISOString(), not_before: notBefore });
    expect(f.runs.records.get(recorded.run_id)).toMatchObject({ status: 'running', workflow: OFFBOARDING_WORKFLOW });
    // The run starts now and waits inside the state machine until notBefore.
    expect(f.workflow.calls).toEqual([{ runId: recorded.run_id, input: expect.objectContaining({ notBefore }), seenBefore: false }]);
    expect(f.accounts.accounts.get(ACCOUNT)!.status).toBe('active');
  });

  it('joins the same run when the same end is told again (a redelivered event)', async () => {
    await seedAccount(f.accounts, { subscription_status: 'canceled' });
    await followSubscription(f.deps, ACCOUNT, ended());
    const recorded = f.accounts.accounts.get(ACCOUNT)!.offboarding!;
    await followSubscription(f.deps, ACCOUNT, ended());
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toEqual(recorded);
    expect([...f.runs.records.keys()]).toEqual([recorded.run_id]);
    expect(f.workflow.calls.map((c) => [c.runId, c.seenBefore])).toEqual([
      [recorded.run_id, false],
      [recorded.run_id, true],
    ]);
  });

  it('forgets the waiting offboarding when the subscription is live again', async () => {
    await seedAccount(f.accounts, { subscription_status: 'canceled' });
    await followSubscription(f.deps, ACCOUNT, ended());
    await followSubscription(f.deps, ACCOUNT, { subscriptionId: 'sub_2', live: true, at: T0.getTime() / 1000 + 60 });
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toBeUndefined();
    expect(f.accounts.accounts.get(ACCOUNT)!.status).toBe('active');
  });

  it('leaves an offboarding that was asked for alone, whether the subscription ends or comes back', async () => {
    await seedAccount(f.accounts);
    const asked = await requestOffboarding(f.deps, ACCOUNT, ask);
    const recorded = f.accounts.accounts.get(ACCOUNT)!.offboarding;
    await followSubscription(f.deps, ACCOUNT, ended());
    await followSubscription(f.deps, ACCOUNT, { subscriptionId: 'sub_1', live: true, at: T0.getTime() / 1000 });
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toEqual(recorded);
    expect(f.workflow.calls.map((c) => c.runId)).toEqual([asked.runId]);
  });

  it('does nothing for a closed account, nor for an end without a subscription id', async () => {
    await seedAccount(f.accounts, { status: 'closed' });
    await followSubscription(f.deps, ACCOUNT, ended());
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toBeUndefined();
    f.accounts.accounts.set(ACCOUNT, { ...f.accounts.accounts.get(ACCOUNT)!, status: 'active' });
    await followSubscription(f.deps, ACCOUNT, { live: false, at: T0.getTime() / 1000 });
    expect(f.accounts.accounts.get(ACCOUNT)!.offboarding).toBeUndefined();
    expect(f.runs.records.size).toBe(0);
    expect(f.workflow.calls).toEqual([]);
  });
});
