import { describe, expect, it, vi } from 'vitest';
import type { Account } from '../../../lib/accounts/accounts.ts';
import { DELIVERY_CLAIMS, DeliveryInProgress } from '../../../lib/deliveries/deliveries.ts';
import { InvalidInput } from '../../../lib/errors.ts';
import { applyBillingEvent, chooseFreePlan, REMEMBERED_EVENTS, type Billing } from '../../../lib/payments/billing.ts';
import { paymentJobName, type PaymentJob } from '../../../lib/payments/payment-queue.ts';
import type { BillingEvent } from '../../../lib/payments/payments.ts';
import { receivePaymentEvent } from '../../../lib/payments/receive-payment-event.ts';
import { fakeInvitations, fakeMemberships } from '../../support/account-fakes.ts';
import { fakeAccounts, fakeDeliveries, fakeFollowUps, fakeMailer, fakeQueue, recordingLogger } from '../../support/fakes.ts';
import { fakeBilling, fakePayments, signed, receiveAndApply } from './fakes.ts';

const LEASE_MS = DELIVERY_CLAIMS.leaseMs;

function setup() {
  const { store, accounts, members } = fakeAccounts();
  const billing = fakeBilling(accounts);
  let now = new Date('2026-01-01T00:00:00Z');
  const deliveries = fakeDeliveries({ now: () => now });
  const log = recordingLogger();
  const followUps = fakeFollowUps();
  const memberships = fakeMemberships();
  const invitations = fakeInvitations();
  const mailer = fakeMailer();
  const deps = {
    payments: fakePayments(),
    deliveries,
    billing,
    accounts: store,
    memberships,
    team: { accounts: store, memberships, invitations, mailer, portalUrl: 'https://portal.test' },
    followUps,
    log,
  };
  /** An account, with `user-1` (who starts the signed-in checkouts of `ev`) one of its admins: a billing manager. */
  const account = (id = 'acct-1', extra: Partial<Account> = {}) => {
    accounts.set(id, { id, status: 'provisioning', created_at: 'then', updated_at: 'then', ...extra });
    memberships.rows.set(`${id}/user-1`, {
      account_id: id,
      user_id: 'user-1',
      email: 'user-1@example.com',
      role: 'admin',
      status: 'active',
      joined_via: 'invitation',
      joined_at: 'then',
      updated_at: 'then',
    });
    return id;
  };
  const later = (ms: number) => (now = new Date(now.getTime() + ms));
  /** A person who joined the account with this e-mail, with this role. */
  const joined = (accountId: string, email: string, role: 'owner' | 'admin' | 'member' = 'owner') =>
    memberships.join({ accountId, userId: crypto.randomUUID(), email, role, via: 'created' });
  return {
    deps,
    accounts,
    members,
    memberships,
    invitations,
    mailer,
    joined,
    billing,
    deliveries,
    followUps,
    log,
    account,
    later,
    receive: (e: Parameters<typeof signed>[0], signature?: string) => receiveAndApply(deps, signed(e, signature)),
  };
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

// `receive` is the webhook and its state machine's step at once (receiveAndApply): each call runs the step, so a
// second call for an event stands for the step run again (a retry of it); the step's once-only rules are held here.
describe('the payment webhook and its step', () => {
  it('refuses a delivery whose signature does not verify before writing or reading anything', async () => {
    const { receive, account, accounts, deliveries, billing } = setup();
    account();
    const before = structuredClone(accounts.get('acct-1'));
    for (const signature of ['t=1,v1=forged', '']) {
      const error = await receive(ev(), signature).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInput);
      expect((error as InvalidInput).code).toBe('invalid_signature');
    }
    expect(deliveries.rows.size).toBe(0);
    expect(billing.writes).toBe(0);
    expect(accounts.get('acct-1')).toEqual(before);
  });

  it("keeps the account's plan, customer, subscription and status from a completed checkout", async () => {
    const { receive, account, accounts, deliveries } = setup();
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
    expect(deliveries.rows.get(`stripe#${event.id}`)).toMatchObject({ value: 'applied', about: { source: 'stripe', account_id: 'acct-1' } });
  });

  it('takes effect once when the step runs 20 times at once for an event: the others are told at once to come back, and a later run is answered from the log', async () => {
    const { receive, account, accounts, billing } = setup();
    account();
    const event = ev({ type: 'checkout.session.completed' });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => receive(event)));
    expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value)).toEqual(['applied']);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) expect(o.reason).toBeInstanceOf(DeliveryInProgress);
    expect(billing.writes).toBe(1);
    expect(accounts.get('acct-1')).toMatchObject({ billing_version: 1, billing_events: [event.id] });
    // A later run (a redrive): answered from the log without touching the account.
    expect(await receive(event)).toBe('already-processed');
    expect(billing.writes).toBe(1);
  });

  it('takes up an event whose step crashed before or after changing the account, with one effect', async () => {
    const { receive, deps, account, accounts, billing, deliveries, later } = setup();
    account();
    // Crashed after the claim, before the change: while its lease runs, a retry is told to come back later (DeliveryInProgress, retried by the machine)...
    const first = ev({ type: 'checkout.session.completed' });
    await deliveries.acquire(`stripe#${first.id}`, 'crashed', { source: 'stripe' });
    await expect(receive(first)).rejects.toBeInstanceOf(DeliveryInProgress);
    expect(billing.writes).toBe(0);
    // ...and once it has run out, the next attempt takes the event over and applies it.
    later(LEASE_MS + 1);
    expect(await receive(first)).toBe('applied');
    expect(deliveries.rows.get(`stripe#${first.id}`)).toMatchObject({ value: 'applied', about: { account_id: 'acct-1' } });

    // Crashed after the change, before recording it done: the attempt that takes over changes nothing, and records it done.
    const second = ev({ type: 'invoice.payment_failed', status: 'past_due', created: 1_800_000_100 });
    await deliveries.acquire(`stripe#${second.id}`, 'crashed', { source: 'stripe' });
    const current = (await deps.billing.billingOf('acct-1'))!;
    const change = applyBillingEvent(current, second);
    if (change.outcome !== 'applied') throw new Error(change.outcome);
    expect(await deps.billing.saveBilling('acct-1', current.version, change.next)).toBe(true);
    const writes = billing.writes;
    later(LEASE_MS + 1);
    expect(await receive(second)).toBe('duplicate');
    expect(billing.writes).toBe(writes);
    expect(deliveries.rows.get(`stripe#${second.id}`)).toMatchObject({ value: 'duplicate', about: { account_id: 'acct-1' } });
    expect(accounts.get('acct-1')?.subscription_status).toBe('past_due');
    expect(await receive(second)).toBe('already-processed');
  });

  it('applies an event once when an attempt slower than its lease and the retry that took over both reach the account', async () => {
    const { receive, deps, account, accounts, billing, deliveries, later } = setup();
    account();
    const event = ev({ type: 'checkout.session.completed' });
    // The first attempt stalls right before it reads the account's billing...
    let resume!: () => void;
    const stalled = new Promise<void>((r) => (resume = r));
    const billingOf = deps.billing.billingOf;
    let reads = 0;
    deps.billing.billingOf = async (accountId) => {
      if (reads++ === 0) await stalled;
      return billingOf(accountId);
    };
    const slow = receive(event);
    await vi.waitFor(() => expect(reads).toBe(1));
    // ...past its lease: a retry takes over and applies the event.
    later(LEASE_MS + 1);
    expect(await receive(event)).toBe('applied');
    // The slow one wakes up: the compare-and-set finds the event applied, and its late completion does not overwrite the row.
    resume();
    expect(await slow).toBe('duplicate');
    expect(billing.writes).toBe(1);
    expect(accounts.get('acct-1')).toMatchObject({ billing_version: 1, billing_events: [event.id] });
    expect(deliveries.rows.get(`stripe#${event.id}`)).toMatchObject({ value: 'applied', about: { account_id: 'acct-1' } });
  });

  it("gives the event back when its step fails, so the machine's retry applies it", async () => {
    const { receive, deps, account, accounts, deliveries } = setup();
    account();
    const event = ev({ type: 'checkout.session.completed' });
    const saveBilling = deps.billing.saveBilling;
    deps.billing.saveBilling = async () => {
      throw new Error('DynamoDB is unavailable');
    };
    await expect(receive(event)).rejects.toThrow('DynamoDB is unavailable');
    expect(deliveries.rows.size).toBe(0);
    deps.billing.saveBilling = saveBilling;
    expect(await receive(event)).toBe('applied');
    expect(accounts.get('acct-1')).toMatchObject({ billing_version: 1, billing_events: [event.id] });
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

  it('gives a public checkout of an address that owns no account an account of its own, once, and its buyer an invitation to own it', async () => {
    const { receive, accounts, members, memberships, invitations, mailer } = setup();
    const reference = { email: 'New.Buyer@Example.com' };
    const outcomes = await Promise.all([
      receive(ev({ type: 'invoice.paid', customerId: 'cus_new', subscriptionId: 'sub_new', reference, created: 10 })),
      receive(ev({ type: 'checkout.session.completed', customerId: 'cus_new', subscriptionId: 'sub_new', reference, created: 10 })),
    ]);
    expect(outcomes).toEqual(['applied', 'applied']);
    const [accountId] = [...accounts.keys()];
    expect(accounts.size).toBe(1);
    expect(accounts.get(accountId!)).toMatchObject({ contact_email: 'new.buyer@example.com', plan: 'pro', subscription_status: 'active', billing_version: 2 });
    // Nobody is a member until the buyer accepts, signed in with that address verified.
    expect(memberships.rows.size + members.size).toBe(0);
    const invited = [...invitations.rows.values()];
    expect(invited).toEqual([expect.objectContaining({ account_id: accountId, email: 'new.buyer@example.com', role: 'owner', status: 'pending', invited_by: { kind: 'checkout' } })]);
    expect(mailer.sent.map((m) => m.to)).toContain('new.buyer@example.com');
  });

  it('invites the buyer of a public checkout once when two of its events are applied side by side, both looking before either writes', async () => {
    const { receive, invitations, mailer } = setup();
    // The payments machine runs each event in its own execution: both look for an open invitation before either makes one.
    const toEmail = invitations.toEmail;
    invitations.toEmail = async (email) => {
      const found = await toEmail(email);
      await new Promise((r) => setTimeout(r, 20));
      return found;
    };
    const reference = { email: 'side.by.side@example.com' };
    const outcomes = await Promise.all([
      receive(ev({ type: 'invoice.paid', customerId: 'cus_sbs', subscriptionId: 'sub_sbs', reference, created: 10 })),
      receive(ev({ type: 'checkout.session.completed', customerId: 'cus_sbs', subscriptionId: 'sub_sbs', reference, created: 10 })),
    ]);
    expect(outcomes).toEqual(['applied', 'applied']);
    expect([...invitations.rows.values()]).toEqual([expect.objectContaining({ email: 'side.by.side@example.com', role: 'owner', invited_by: { kind: 'checkout' } })]);
    expect(mailer.sent.filter((m) => m.to === 'side.by.side@example.com')).toHaveLength(1);
  });

  it('links a public checkout to the one account its e-mail owns', async () => {
    const { receive, account, accounts, joined } = setup();
    account('acct-existing');
    await joined('acct-existing', 'ann@example.com', 'owner');
    await receive(ev({ type: 'checkout.session.completed', reference: { email: 'ann@example.com' }, customerId: 'cus_x', subscriptionId: 'sub_x' }));
    expect(accounts.get('acct-existing')).toMatchObject({ stripe_customer_id: 'cus_x', subscription_status: 'active' });
    expect(accounts.size).toBe(1);
  });

  it('never links a public checkout to an account only because its e-mail is a plain member there, or written into it by a sync', async () => {
    const { receive, deps, account, accounts, joined } = setup();
    account('acct-mallory');
    await joined('acct-mallory', 'ceo@bigcorp.example', 'member');
    await deps.accounts.claimMember({ email: 'ceo@bigcorp.example', account_id: 'acct-mallory', role: 'member' });
    await receive(ev({ type: 'checkout.session.completed', reference: { email: 'ceo@bigcorp.example' }, customerId: 'cus_ceo', subscriptionId: 'sub_ceo' }));
    expect(accounts.get('acct-mallory')).not.toHaveProperty('stripe_customer_id');
    expect(accounts.size).toBe(2);
  });

  it("never lets a public checkout take over an existing account's live subscription or customer: it is recorded for an operator", async () => {
    const { receive, account, accounts, deliveries, followUps, log, joined } = setup();
    account('acct-paying', { plan: 'pro', stripe_customer_id: 'cus_owner', subscription_id: 'sub_owner', subscription_status: 'past_due', billing_event_at: 100 });
    await joined('acct-paying', 'ann@example.com');
    const before = { ...accounts.get('acct-paying') };
    const reference = { email: 'Ann@Example.com' };

    const paid = ev({ type: 'invoice.paid', reference, customerId: 'cus_anon', subscriptionId: 'sub_anon', plan: 'enterprise', created: 200 });
    const completed = ev({ type: 'checkout.session.completed', reference, customerId: 'cus_anon', subscriptionId: 'sub_anon', plan: 'enterprise', created: 200 });
    expect(await receive(paid)).toBe('other-subscription');
    expect(await receive(completed)).toBe('conflict');
    expect(await receive(completed)).toBe('already-processed');

    expect(accounts.get('acct-paying')).toEqual(before);
    expect(deliveries.rows.get(`stripe#${completed.id}`)).toEqual(expect.objectContaining({ value: 'conflict', about: expect.objectContaining({ account_id: 'acct-paying' }) }));
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'warn', message: 'a public checkout matches an account that pays for another subscription; not linked' }));
    expect(await followUps.listOpen()).toEqual([
      expect.objectContaining({
        account_id: 'acct-paying',
        integration: 'billing',
        run_id: `stripe#${completed.id}`,
        failures: 1,
        context: expect.objectContaining({ customerId: 'cus_anon', subscriptionId: 'sub_anon', accountSubscriptionId: 'sub_owner' }),
      }),
    ]);
  });

  it('links a public checkout to an existing account whose subscription has ended, customer included', async () => {
    const { receive, account, accounts, followUps, joined } = setup();
    account('acct-lapsed', { plan: 'free', stripe_customer_id: 'cus_old', subscription_id: 'sub_old', subscription_status: 'canceled', billing_event_at: 100 });
    await joined('acct-lapsed', 'ann@example.com');
    const completed = ev({ type: 'checkout.session.completed', reference: { email: 'ann@example.com' }, customerId: 'cus_new', subscriptionId: 'sub_new', created: 200 });
    expect(await receive(completed)).toBe('applied');
    expect(accounts.get('acct-lapsed')).toMatchObject({ plan: 'pro', stripe_customer_id: 'cus_new', subscription_id: 'sub_new', subscription_status: 'active' });
    expect(await followUps.listOpen()).toEqual([]);
  });

  it("lets the account's own signed-in checkout replace its live subscription", async () => {
    const { receive, account, accounts } = setup();
    account('acct-1', { plan: 'starter', stripe_customer_id: 'cus_1', subscription_id: 'sub_old', subscription_status: 'active', billing_event_at: 100 });
    expect(await receive(ev({ type: 'checkout.session.completed', subscriptionId: 'sub_new', created: 200 }))).toBe('applied');
    expect(accounts.get('acct-1')).toMatchObject({ plan: 'pro', subscription_id: 'sub_new', subscription_status: 'active' });
  });

  it("never lets a checkout paid after its starter was removed move the account off its live subscription: it is recorded for an operator", async () => {
    const { receive, account, accounts, deliveries, followUps, log, memberships } = setup();
    account('acct-1', { plan: 'enterprise', stripe_customer_id: 'cus_1', subscription_id: 'sub_owner', subscription_status: 'active', billing_event_at: 100 });
    expect(await memberships.remove('acct-1', 'user-1', 'admin')).toBe('changed');
    const before = { ...accounts.get('acct-1') };

    // Her checkout reused the account's customer; its events name the account and her.
    const paid = ev({ type: 'invoice.paid', subscriptionId: 'sub_hers', plan: 'starter', created: 200 });
    const completed = ev({ type: 'checkout.session.completed', subscriptionId: 'sub_hers', plan: 'starter', created: 200 });
    expect(await receive(paid)).toBe('other-subscription');
    expect(await receive(completed)).toBe('conflict');
    expect(await receive(completed)).toBe('already-processed');

    expect(accounts.get('acct-1')).toEqual(before);
    expect(deliveries.rows.get(`stripe#${completed.id}`)).toMatchObject({ value: 'conflict', about: { source: 'stripe', account_id: 'acct-1' } });
    expect(log.entries).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: "a checkout was paid after its starter was no longer allowed to manage the account's billing; not linked",
        fields: expect.objectContaining({ accountId: 'acct-1', startedBy: 'user-1', reason: 'starter-not-allowed' }),
      }),
    );
    expect(await followUps.listOpen()).toEqual([
      expect.objectContaining({
        account_id: 'acct-1',
        integration: 'billing',
        run_id: `stripe#${completed.id}`,
        message: expect.stringContaining("no longer allowed to manage this account's billing"),
        context: expect.objectContaining({ reason: 'starter-not-allowed', startedBy: 'user-1', subscriptionId: 'sub_hers', accountSubscriptionId: 'sub_owner' }),
      }),
    ]);
  });

  it('links nothing an ex-billing manager paid for, also to an account with no live subscription, and whether they were removed, left or demoted', async () => {
    const demoted = setup();
    demoted.account('acct-1', { plan: 'free', stripe_customer_id: 'cus_1', subscription_id: 'sub_old', subscription_status: 'canceled', billing_event_at: 100 });
    expect(await demoted.memberships.setRole('acct-1', 'user-1', 'admin', 'member')).toBe('changed');
    const never = setup();
    never.account('acct-1');
    never.memberships.rows.delete('acct-1/user-1');
    for (const { receive, accounts, followUps } of [demoted, never]) {
      const before = { ...accounts.get('acct-1') };
      // Every event of her purchase, the first one applied included: none links her subscription.
      expect(await receive(ev({ type: 'customer.subscription.updated', subscriptionId: 'sub_hers', created: 200 }))).toBe('other-subscription');
      expect(await receive(ev({ type: 'invoice.paid', subscriptionId: 'sub_hers', created: 200 }))).toBe('other-subscription');
      expect(await receive(ev({ type: 'checkout.session.completed', subscriptionId: 'sub_hers', created: 200 }))).toBe('conflict');
      expect(accounts.get('acct-1')).toEqual(before);
      expect(await followUps.listOpen()).toEqual([expect.objectContaining({ integration: 'billing', context: expect.objectContaining({ reason: 'starter-not-allowed' }) })]);
    }
  });

  it("keeps the account's own subscription current after the billing manager who bought it was removed", async () => {
    const { receive, account, accounts, memberships, followUps } = setup();
    account();
    expect(await receive(ev({ type: 'checkout.session.completed', created: 100 }))).toBe('applied');
    expect(await memberships.remove('acct-1', 'user-1', 'admin')).toBe('changed');
    // Renewals and changes of that subscription still carry her id in its metadata.
    expect(await receive(ev({ type: 'invoice.payment_failed', status: 'past_due', created: 200 }))).toBe('applied');
    expect(await receive(ev({ type: 'invoice.paid', created: 300 }))).toBe('applied');
    expect(await receive(ev({ type: 'customer.subscription.updated', plan: 'enterprise', created: 400 }))).toBe('applied');
    expect(accounts.get('acct-1')).toMatchObject({ plan: 'enterprise', subscription_id: 'sub_1', subscription_status: 'active' });
    expect(await followUps.listOpen()).toEqual([]);
  });

  it('applies the checkout of a starter who is still a billing manager, owner or admin, as before', async () => {
    for (const role of ['owner', 'admin'] as const) {
      const { receive, account, accounts, memberships, followUps } = setup();
      account('acct-1', { plan: 'enterprise', stripe_customer_id: 'cus_1', subscription_id: 'sub_owner', subscription_status: 'active', billing_event_at: 100 });
      if (role === 'owner') expect(await memberships.setRole('acct-1', 'user-1', 'admin', 'owner')).toBe('changed');
      expect(await receive(ev({ type: 'checkout.session.completed', subscriptionId: 'sub_new', plan: 'starter', created: 200 })), role).toBe('applied');
      expect(accounts.get('acct-1'), role).toMatchObject({ plan: 'starter', subscription_id: 'sub_new', subscription_status: 'active' });
      expect(await followUps.listOpen()).toEqual([]);
    }
  });

  it('leaves alone events of subscriptions it cannot place, and event types it does not act on', async () => {
    const { receive, accounts, members, deliveries, log } = setup();
    const stranger = ev({ reference: undefined, customerId: 'cus_stranger' });
    expect(await receive(stranger)).toBe('unmatched');
    expect(deliveries.rows.get(`stripe#${stranger.id}`)).toMatchObject({ value: 'unmatched', about: { source: 'stripe' } });
    expect(deliveries.rows.get(`stripe#${stranger.id}`)!.about).not.toHaveProperty('account_id');
    expect(accounts.size + members.size).toBe(0);
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'warn', message: 'payment event matches no account' }));

    expect(await receive({ handled: false, id: 'evt_other', type: 'charge.refunded' })).toBe('ignored');
    expect(deliveries.rows.has('stripe#evt_other')).toBe(false);
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

describe('the payment webhook itself', () => {
  const webhook = (q = fakeQueue<PaymentJob>()) => ({ q, deps: { payments: fakePayments(), queue: q, log: recordingLogger() } });

  it('queues a verified event under a name of its id, and every copy of it under the same name, touching no table', async () => {
    const { q, deps } = webhook();
    const event = ev({ type: 'checkout.session.completed' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => receivePaymentEvent(deps, signed(event))));
    expect(answers.filter((a) => a === 'queued')).toHaveLength(1);
    expect(answers.filter((a) => a === 'already-queued')).toHaveLength(19);
    expect([...q.jobs]).toEqual([[paymentJobName(event.id), { event }]]);
    expect(paymentJobName(event.id)).toMatch(/^payment-[0-9a-f]{48}$/);
  });

  it('queues nothing for a delivery whose signature does not verify, nor for an event type it does not act on', async () => {
    const { q, deps } = webhook();
    await expect(receivePaymentEvent(deps, signed(ev(), 't=1,v1=forged'))).rejects.toBeInstanceOf(InvalidInput);
    expect(await receivePaymentEvent(deps, signed({ handled: false, id: 'evt_refund', type: 'charge.refunded' }))).toBe('ignored');
    expect(q.jobs.size).toBe(0);
  });

  it('fails when the event cannot be queued, so that the provider delivers it again', async () => {
    const { q, deps } = webhook();
    q.failNext();
    const event = ev();
    await expect(receivePaymentEvent(deps, signed(event))).rejects.toThrow('Step Functions is unavailable');
    expect(await receivePaymentEvent(deps, signed(event))).toBe('queued');
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

  it("refuses what a starter no longer allowed to manage billing paid for, except the account's own subscription", () => {
    const paying: Billing = { ...empty, plan: 'enterprise', customerId: 'cus_1', subscriptionId: 'sub_1', status: 'active', eventAt: 100 };
    const lapsed: Billing = { ...paying, plan: 'free', status: 'canceled' };
    const notAllowed = { mayManageBilling: false };
    for (const current of [paying, lapsed, empty]) {
      const hers = { subscriptionId: 'sub_2', plan: 'starter' as const, created: 200 };
      expect(applyBillingEvent(current, ev({ type: 'checkout.session.completed', ...hers }), notAllowed)).toEqual({ outcome: 'conflict', reason: 'starter-not-allowed' });
      for (const type of ['invoice.paid', 'invoice.payment_failed', 'customer.subscription.updated', 'customer.subscription.deleted'] as const) {
        expect(applyBillingEvent(current, ev({ type, ...hers }), notAllowed)).toEqual({ outcome: 'other-subscription' });
      }
      // A checkout event without a subscription of its own would still set the plan: refused as well.
      expect(applyBillingEvent(current, ev({ type: 'checkout.session.completed', subscriptionId: undefined, created: 200 }), notAllowed).outcome).toBe('conflict');
      // Allowed, or not asked (a public checkout, a subscription we did not start): the rules as before.
      expect(applyBillingEvent(current, ev({ type: 'checkout.session.completed', ...hers }), { mayManageBilling: true }).outcome).toBe('applied');
    }
    expect(applyBillingEvent(paying, ev({ type: 'checkout.session.completed', subscriptionId: 'sub_2', reference: { email: 'a@example.com' }, created: 200 }))).toEqual({
      outcome: 'conflict',
      reason: 'public-checkout',
    });
    // The account's own subscription, whoever started it; duplicates and stale events first, as always.
    expect(applyBillingEvent(paying, ev({ type: 'invoice.paid', subscriptionId: 'sub_1', created: 200 }), notAllowed).outcome).toBe('applied');
    expect(applyBillingEvent(paying, ev({ type: 'checkout.session.completed', subscriptionId: 'sub_2', created: 50 }), notAllowed).outcome).toBe('stale');
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
