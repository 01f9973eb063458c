import { describe, expect, it } from 'vitest';
import type { Account } from '../../../lib/accounts/accounts.ts';
import { InvalidInput } from '../../../lib/errors.ts';
import { applyBillingEvent, chooseFreePlan, REMEMBERED_EVENTS, type Billing } from '../../../lib/payments/billing.ts';
import type { BillingEvent } from '../../../lib/payments/payments.ts';
import { receivePaymentEvent } from '../../../lib/payments/receive-payment-event.ts';
import { fakeAccounts } from '../../support/fakes.ts';
import { recordingLogger } from '../auth/fakes.ts';
import { fakeBilling, fakePayments, fakeWebhookEvents, signed } from './fakes.ts';

function setup() {
  const { store, accounts, members } = fakeAccounts();
  const billing = fakeBilling(accounts);
  const events = fakeWebhookEvents();
  const log = recordingLogger();
  let ids = 0;
  const deps = { payments: fakePayments(), events, billing, accounts: store, log, newId: () => `acct-new-${++ids}` };
  const account = (id = 'acct-1', extra: Partial<Account> = {}) => {
    accounts.set(id, { id, status: 'provisioning', created_at: 'then', updated_at: 'then', ...extra });
    return id;
  };
  return { deps, accounts, members, billing, events, log, account, receive: (e: Parameters<typeof signed>[0], signature?: string) => receivePaymentEvent(deps, signed(e, signature)) };
}

let seq = 0;
const ev = (overrides: Partial<BillingEvent> = {}): BillingEvent => ({
  id: `evt_${++seq}`,
  type: 'invoice.paid',
  created: 1_800_000_000,
  customerId: 'cus_1',
  subscriptionId: 'sub_1',
  status: 'active',
  plan: 'pro',
  reference: { accountId: 'acct-1', userId: 'user-1', email: 'ann@example.com' },
  ...overrides,
});

describe('the payment webhook', () => {
  it('refuses a delivery whose signature does not verify before writing or reading anything', async () => {
    const { receive, account, accounts, events, billing } = setup();
    account();
    const before = structuredClone(accounts.get('acct-1'));
    for (const signature of ['t=1,v1=forged', '']) {
      const error = await receive(ev(), signature).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInput);
      expect((error as InvalidInput).code).toBe('invalid_signature');
    }
    expect(events.rows.size).toBe(0);
    expect(billing.writes).toBe(0);
    expect(accounts.get('acct-1')).toEqual(before);
  });

  it("keeps the account's plan, customer, subscription and status from a completed checkout", async () => {
    const { receive, account, accounts, events } = setup();
    account();
    const event = ev({ type: 'checkout.session.completed' });
    expect(await receive(event)).toBe('applied');
    expect(accounts.get('acct-1')).toMatchObject({
      plan: 'pro',
      stripe_customer_id: 'cus_1',
      subscription_id: 'sub_1',
      subscription_status: 'active',
      billing_version: 1,
      billing_event_at: 1_800_000_000,
    });
    expect(events.rows.get(`stripe#${event.id}`)).toMatchObject({ state: 'finished', outcome: 'applied', accountId: 'acct-1' });
  });

  it('takes effect once when the same event arrives 20 times at once', async () => {
    const { receive, account, accounts, billing } = setup();
    account();
    const event = ev({ type: 'checkout.session.completed' });
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => receive(event)));
    expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
    expect(outcomes.every((o) => ['applied', 'duplicate', 'already-processed'].includes(o))).toBe(true);
    expect(billing.writes).toBe(1);
    expect(accounts.get('acct-1')).toMatchObject({ billing_version: 1, billing_events: [event.id] });
    // And again, later: answered from the log without touching the account.
    expect(await receive(event)).toBe('already-processed');
    expect(billing.writes).toBe(1);
  });

  it('takes up an event whose delivery crashed before or after changing the account, with one effect', async () => {
    const { receive, deps, account, accounts, billing, events } = setup();
    account();
    // Crashed after the claim, before the change: the next delivery applies it.
    const first = ev({ type: 'checkout.session.completed' });
    await events.claim('stripe', first.id, first.type);
    expect(await receive(first)).toBe('applied');
    // Crashed after the change, before marking it finished: the next delivery changes nothing, and finishes it.
    const second = ev({ type: 'invoice.payment_failed', status: 'past_due', created: 1_800_000_100 });
    await events.claim('stripe', second.id, second.type);
    const current = (await deps.billing.billingOf('acct-1'))!;
    const change = applyBillingEvent(current, second);
    if (change.outcome !== 'applied') throw new Error(change.outcome);
    expect(await deps.billing.saveBilling('acct-1', current.version, change.next)).toBe(true);
    const writes = billing.writes;
    expect(await receive(second)).toBe('duplicate');
    expect(billing.writes).toBe(writes);
    expect(events.rows.get(`stripe#${second.id}`)?.state).toBe('finished');
    expect(accounts.get('acct-1')?.subscription_status).toBe('past_due');
  });

  it('applies invoice.paid arriving before checkout.session.completed, keyed on the subscription, not the order', async () => {
    const { receive, account, accounts } = setup();
    account();
    expect(await receive(ev({ type: 'invoice.paid', created: 1_800_000_000 }))).toBe('applied');
    expect(await receive(ev({ type: 'checkout.session.completed', created: 1_800_000_001 }))).toBe('applied');
    expect(accounts.get('acct-1')).toMatchObject({ plan: 'pro', subscription_status: 'active', subscription_id: 'sub_1', stripe_customer_id: 'cus_1' });
  });

  it('finds the account by its customer when the event carries no reference of ours', async () => {
    const { receive, account, accounts } = setup();
    account('acct-9', { stripe_customer_id: 'cus_9', subscription_id: 'sub_9', subscription_status: 'active', plan: 'pro' });
    expect(await receive(ev({ type: 'customer.subscription.updated', customerId: 'cus_9', subscriptionId: 'sub_9', plan: 'enterprise', reference: undefined }))).toBe('applied');
    expect(accounts.get('acct-9')).toMatchObject({ plan: 'enterprise', subscription_status: 'active' });
  });

  it('never moves the status backwards: an older event arriving late changes nothing', async () => {
    const { receive, account, accounts } = setup();
    account();
    await receive(ev({ type: 'checkout.session.completed', created: 100 }));
    await receive(ev({ type: 'customer.subscription.deleted', status: 'canceled', plan: 'free', created: 300 }));
    expect(await receive(ev({ type: 'invoice.paid', created: 200 }))).toBe('stale');
    expect(await receive(ev({ type: 'customer.subscription.updated', status: 'past_due', created: 250 }))).toBe('stale');
    expect(accounts.get('acct-1')).toMatchObject({ subscription_status: 'canceled', plan: 'free', billing_event_at: 300 });
  });

  it('follows a failed renewal and its recovery', async () => {
    const { receive, account, accounts } = setup();
    account();
    await receive(ev({ type: 'checkout.session.completed', created: 100 }));
    await receive(ev({ type: 'invoice.payment_failed', status: 'past_due', plan: undefined, created: 200 }));
    expect(accounts.get('acct-1')).toMatchObject({ subscription_status: 'past_due', plan: 'pro' });
    await receive(ev({ type: 'invoice.paid', created: 300 }));
    expect(accounts.get('acct-1')?.subscription_status).toBe('active');
  });

  it("links a public checkout by its e-mail, creating the account and owner member once, whichever event comes first", async () => {
    const { receive, accounts, members } = setup();
    const reference = { email: 'New.Buyer@Example.com' };
    const outcomes = await Promise.all([
      receive(ev({ type: 'invoice.paid', customerId: 'cus_new', subscriptionId: 'sub_new', reference, created: 10 })),
      receive(ev({ type: 'checkout.session.completed', customerId: 'cus_new', subscriptionId: 'sub_new', reference, created: 10 })),
    ]);
    expect(outcomes).toEqual(['applied', 'applied']);
    expect([...members.values()]).toEqual([expect.objectContaining({ email: 'new.buyer@example.com', role: 'owner', account_id: expect.any(String) })]);
    const accountId = members.get('new.buyer@example.com')!.account_id;
    expect([...accounts.keys()]).toEqual([accountId]);
    expect(accounts.get(accountId)).toMatchObject({ contact_email: 'new.buyer@example.com', plan: 'pro', subscription_status: 'active', billing_version: 2 });
  });

  it('links a public checkout to the account of an existing member with that e-mail', async () => {
    const { receive, deps, account, accounts } = setup();
    account('acct-existing');
    await deps.accounts.claimMember({ email: 'ann@example.com', account_id: 'acct-existing', role: 'owner' });
    await receive(ev({ type: 'checkout.session.completed', reference: { email: 'ann@example.com' }, customerId: 'cus_x', subscriptionId: 'sub_x' }));
    expect(accounts.get('acct-existing')).toMatchObject({ stripe_customer_id: 'cus_x', subscription_status: 'active' });
    expect(accounts.size).toBe(1);
  });

  it('leaves alone events of subscriptions it cannot place, and event types it does not act on', async () => {
    const { receive, accounts, members, events, log } = setup();
    expect(await receive(ev({ reference: undefined, customerId: 'cus_stranger' }))).toBe('unmatched');
    expect(accounts.size + members.size).toBe(0);
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'warn', message: 'payment event matches no account' }));

    expect(await receive({ handled: false, id: 'evt_other', type: 'charge.refunded' })).toBe('ignored');
    expect(events.rows.has('stripe#evt_other')).toBe(false);
    expect(log.entries).toContainEqual(expect.objectContaining({ message: 'payment event ignored', fields: { eventId: 'evt_other', eventType: 'charge.refunded' } }));
  });

  it("keeps a live subscription when another subscription of the customer changes; a completed checkout moves the account on", async () => {
    const { receive, account, accounts } = setup();
    account();
    await receive(ev({ type: 'checkout.session.completed', created: 100 }));
    expect(await receive(ev({ type: 'customer.subscription.deleted', subscriptionId: 'sub_old', status: 'canceled', plan: 'free', created: 200 }))).toBe('other-subscription');
    expect(accounts.get('acct-1')).toMatchObject({ subscription_id: 'sub_1', subscription_status: 'active', plan: 'pro' });
    expect(await receive(ev({ type: 'checkout.session.completed', subscriptionId: 'sub_2', plan: 'enterprise', created: 300 }))).toBe('applied');
    expect(accounts.get('acct-1')).toMatchObject({ subscription_id: 'sub_2', plan: 'enterprise' });
  });
});

describe('billing rules', () => {
  const empty: Billing = { recentEvents: [] };

  it('remembers only the latest event ids, and refuses those it remembers', () => {
    let billing: Billing = { ...empty };
    const applied: string[] = [];
    for (let i = 0; i < REMEMBERED_EVENTS + 5; i++) {
      const change = applyBillingEvent(billing, ev({ created: 1000 }));
      if (change.outcome !== 'applied') throw new Error(change.outcome);
      billing = change.next;
      applied.push(billing.recentEvents.at(-1)!);
    }
    expect(billing.recentEvents).toEqual(applied.slice(-REMEMBERED_EVENTS));
    expect(applyBillingEvent(billing, ev({ id: applied.at(-1)!, created: 1000 })).outcome).toBe('duplicate');
  });

  it('lets events of the same second apply in arrival order', () => {
    const first = applyBillingEvent(empty, ev({ status: 'past_due', created: 50 }));
    if (first.outcome !== 'applied') throw new Error(first.outcome);
    const second = applyBillingEvent(first.next, ev({ status: 'active', created: 50 }));
    expect(second).toMatchObject({ outcome: 'applied', next: { status: 'active', eventAt: 50 } });
  });

  it('records the free plan unless a paid subscription is live', () => {
    expect(chooseFreePlan(empty)).toEqual({ outcome: 'recorded', next: { recentEvents: [], plan: 'free' } });
    expect(chooseFreePlan({ ...empty, plan: 'pro', subscriptionId: 'sub_1', status: 'past_due' })).toEqual({ outcome: 'kept-subscription' });
    expect(chooseFreePlan({ ...empty, plan: 'pro', subscriptionId: 'sub_1', status: 'canceled' })).toMatchObject({ outcome: 'recorded', next: { plan: 'free' } });
    // Already free (e.g. a cancelled subscription, or free chosen before): nothing to write.
    expect(chooseFreePlan({ ...empty, plan: 'free', subscriptionId: 'sub_1', status: 'canceled' })).toEqual({ outcome: 'already-free' });
    expect(chooseFreePlan({ ...empty, plan: 'free' })).toEqual({ outcome: 'already-free' });
  });
});
