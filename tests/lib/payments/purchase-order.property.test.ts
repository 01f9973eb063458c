// A purchase's events, in every order Stripe may deliver them and with
// duplicates (Stripe guarantees no order and may deliver an event more than
// once): the payment webhook must leave the account exactly as one tidy,
// in-order delivery would. Stripe-shaped events go through the adapter's own
// reading (toPaymentEvent) and the webhook's use case with in-memory stores;
// fast-check draws the delivery sequence, the events' `created` seconds and
// which deliveries overlap.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toPaymentEvent } from '../../../lib/payments/stripe-events.ts';
import { DeliveryInProgress } from '../../../lib/deliveries/deliveries.ts';
import { fakeInvitations, fakeMemberships } from '../../support/account-fakes.ts';
import { fakeAccounts, fakeDeliveries, fakeFollowUps, fakeMailer, recordingLogger } from '../../support/fakes.ts';
import { fakeBilling, fakePayments, signed, receiveAndApply } from './fakes.ts';

const PRICES = { starter: 'price_starter', pro: 'price_pro', enterprise: 'price_enterprise' };
const T = 1_800_000_000;
const TYPES = ['checkout.session.completed', 'invoice.paid', 'customer.subscription.updated'] as const;

interface Purchase {
  customer: string;
  subscription: string;
  /** What our checkout wrote into the session's and the subscription's metadata. */
  metadata: Record<string, string>;
}

/** The three events of a paid subscription checkout, as Stripe sends them, `created` seconds apart as drawn. */
function purchaseEvents(p: Purchase, offsets: readonly number[]) {
  const objects = {
    'checkout.session.completed': {
      id: `cs_${p.subscription}`,
      mode: 'subscription',
      payment_status: 'paid',
      customer: p.customer,
      subscription: p.subscription,
      client_reference_id: p.metadata.account_id ?? null,
      metadata: p.metadata,
    },
    'invoice.paid': {
      id: `in_${p.subscription}`,
      customer: p.customer,
      billing_reason: 'subscription_create',
      lines: { data: [{ pricing: { price_details: { price: PRICES.pro } } }] },
      parent: { subscription_details: { subscription: p.subscription, metadata: p.metadata } },
    },
    'customer.subscription.updated': {
      id: p.subscription,
      customer: p.customer,
      status: 'active',
      items: { data: [{ price: { id: PRICES.pro } }] },
      metadata: p.metadata,
    },
  };
  return TYPES.map((type, i) => toPaymentEvent({ id: `evt_${p.subscription}_${i}`, type, created: T + offsets[i]!, data: { object: objects[type] } }, PRICES));
}

/** A delivery sequence: every event at least once, some twice or three times, in any order, with some deliveries overlapping. */
const deliveries = fc.record({
  copies: fc.tuple(...TYPES.map(() => fc.integer({ min: 1, max: 3 }))),
  offsets: fc.tuple(...TYPES.map(() => fc.integer({ min: 0, max: 2 }))),
  shuffle: fc.array(fc.nat(), { minLength: 9, maxLength: 9 }),
  overlap: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
});

function sequenceOf(d: { copies: readonly number[]; shuffle: number[] }): number[] {
  const sequence = d.copies.flatMap((n, event) => Array.from({ length: n }, () => event));
  // Fisher–Yates driven by the drawn numbers: every order is reachable.
  for (let i = sequence.length - 1; i > 0; i--) {
    const j = d.shuffle[i]! % (i + 1);
    [sequence[i], sequence[j]] = [sequence[j]!, sequence[i]!];
  }
  return sequence;
}

function webhook() {
  const { store, accounts, members } = fakeAccounts();
  const followUps = fakeFollowUps();
  const memberships = fakeMemberships();
  const invitations = fakeInvitations();
  let ids = 0;
  const deps = {
    payments: fakePayments(),
    deliveries: fakeDeliveries(),
    billing: fakeBilling(accounts),
    accounts: store,
    memberships,
    team: { accounts: store, memberships, invitations, mailer: fakeMailer(), portalUrl: 'https://portal.test' },
    followUps,
    log: recordingLogger(),
    newId: () => `acct-new-${++ids}`,
    sleep: () => new Promise<void>((r) => setImmediate(r)),
  };
  /** Delivers as Stripe does: a 409 (delivery in progress) is delivered again later. */
  const deliver = async (event: ReturnType<typeof purchaseEvents>[number]) => {
    for (;;) {
      try {
        return await receiveAndApply(deps, signed(event));
      } catch (error) {
        if (!(error instanceof DeliveryInProgress)) throw error;
        await new Promise<void>((r) => setImmediate(r));
      }
    }
  };
  /** Runs the sequence; a delivery marked to overlap starts before the previous one has finished. */
  const run = async (events: ReturnType<typeof purchaseEvents>, sequence: number[], overlap: boolean[]) => {
    let inFlight: Promise<unknown>[] = [];
    for (const [i, index] of sequence.entries()) {
      if (!overlap[i]) {
        await Promise.all(inFlight);
        inFlight = [];
      }
      inFlight.push(deliver(events[index]!));
    }
    return Promise.all(inFlight);
  };
  return { deps, accounts, members, memberships, invitations, followUps, run };
}

const paidPro = (p: Purchase) => ({ plan: 'pro', stripe_customer_id: p.customer, subscription_id: p.subscription, subscription_status: 'active' });

describe('a purchase applied in every order its events can come in, duplicates included', () => {
  it('a signed-in checkout: the account pays for pro, whatever the order', async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, async (d) => {
        const w = webhook();
        w.accounts.set('acct-1', { id: 'acct-1', status: 'active', created_at: 'then', updated_at: 'then' });
        await w.memberships.join({ accountId: 'acct-1', userId: 'user-1', email: 'ann@example.com', role: 'admin', via: 'invitation' });
        const purchase = { customer: 'cus_1', subscription: 'sub_1', metadata: { account_id: 'acct-1', user_id: 'user-1', email: 'ann@example.com', plan: 'pro' } };
        await w.run(purchaseEvents(purchase, d.offsets), sequenceOf(d), d.overlap);
        expect(w.accounts.get('acct-1')).toMatchObject(paidPro(purchase));
        expect(w.accounts.size).toBe(1);
        expect(w.followUps.items.size).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it("a signed-in checkout paid after its starter was removed: the account's billing does not move, live subscription or none, one follow-up", async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, fc.boolean(), async (d, paying) => {
        const w = webhook();
        const live = paying ? { plan: 'enterprise', stripe_customer_id: 'cus_1', subscription_id: 'sub_old', subscription_status: 'active', billing_events: [], billing_version: 1 } : {};
        w.accounts.set('acct-1', { id: 'acct-1', status: 'active', created_at: 'then', updated_at: 'then', ...live });
        await w.memberships.join({ accountId: 'acct-1', userId: 'user-0', email: 'owner@example.com', role: 'owner', via: 'created' });
        await w.memberships.join({ accountId: 'acct-1', userId: 'user-1', email: 'mallory@example.com', role: 'admin', via: 'invitation' });
        expect(await w.memberships.remove('acct-1', 'user-1', 'admin')).toBe('changed');
        const before = structuredClone(w.accounts.get('acct-1'));
        const purchase = { customer: 'cus_1', subscription: 'sub_4', metadata: { account_id: 'acct-1', user_id: 'user-1', email: 'mallory@example.com', plan: 'starter' } };
        await w.run(purchaseEvents(purchase, d.offsets), sequenceOf(d), d.overlap);
        expect(w.accounts.get('acct-1')).toEqual(before);
        expect(w.accounts.size).toBe(1);
        expect([...w.followUps.items.values()]).toEqual([
          expect.objectContaining({ account_id: 'acct-1', integration: 'billing', state: 'open', context: expect.objectContaining({ reason: 'starter-not-allowed', startedBy: 'user-1' }) }),
        ]);
      }),
      { numRuns: 150 },
    );
  });

  it('a public checkout for a new address: one account, made once, pays for pro', async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, async (d) => {
        const w = webhook();
        const purchase = { customer: 'cus_2', subscription: 'sub_2', metadata: { email: 'New.Buyer@example.com', plan: 'pro' } };
        await w.run(purchaseEvents(purchase, d.offsets), sequenceOf(d), d.overlap);
        expect(w.accounts.size).toBe(1);
        // The buyer is invited to own it (joining is their act), once.
        const invited = [...w.invitations.rows.values()].filter((i) => i.email === 'new.buyer@example.com');
        expect(invited).toEqual([expect.objectContaining({ role: 'owner', status: 'pending' })]);
        expect(w.accounts.get(invited[0]!.account_id)).toMatchObject(paidPro(purchase));
        expect(w.followUps.items.size).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it("a public checkout with the address of an account that pays for another subscription: nothing of the account moves, one follow-up", async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, async (d) => {
        const w = webhook();
        const live = { id: 'acct-9', status: 'active' as const, created_at: 'then', updated_at: 'then', plan: 'starter', stripe_customer_id: 'cus_old', subscription_id: 'sub_old', subscription_status: 'active', billing_events: [], billing_version: 1 };
        w.accounts.set('acct-9', live);
        await w.memberships.join({ accountId: 'acct-9', userId: 'user-9', email: 'owner@example.com', role: 'owner', via: 'created' });
        const purchase = { customer: 'cus_3', subscription: 'sub_3', metadata: { email: 'owner@example.com', plan: 'pro' } };
        await w.run(purchaseEvents(purchase, d.offsets), sequenceOf(d), d.overlap);
        expect(w.accounts.get('acct-9')).toMatchObject({ plan: 'starter', stripe_customer_id: 'cus_old', subscription_id: 'sub_old', subscription_status: 'active' });
        expect(w.accounts.size).toBe(1);
        expect([...w.followUps.items.values()]).toEqual([expect.objectContaining({ account_id: 'acct-9', integration: 'billing', state: 'open' })]);
      }),
      { numRuns: 150 },
    );
  });
});
