import { describe, expect, it } from 'vitest';
import { toPaymentEvent } from '../../../lib/payments/stripe-events.ts';

const PRICES = { starter: 'price_starter', pro: 'price_pro', enterprise: 'price_enterprise' };

describe('reading a Stripe event', () => {
  // A signed event of an odd shape threw (lines.data.map is not a function) and was answered 500, which Stripe retries for days.
  it('reads an invoice whose lines are not a list of objects as one without prices, never throwing', () => {
    for (const data of ['lines', { a: 1 }, [null], [7, 'x']]) {
      const read = toPaymentEvent(
        { id: 'evt_1', type: 'invoice.paid', created: 1_700_000_000, data: { object: { subscription: 'sub_1', customer: 'cus_1', lines: { data } } } },
        PRICES,
      );
      expect(read, JSON.stringify(data)).toMatchObject({ handled: true, event: { type: 'invoice.paid', subscriptionId: 'sub_1', status: 'active' } });
    }
    const priced = toPaymentEvent(
      { id: 'evt_2', type: 'invoice.paid', created: 1_700_000_000, data: { object: { subscription: 'sub_1', lines: { data: [null, { price: 'price_pro' }] } } } },
      PRICES,
    );
    expect(priced).toMatchObject({ handled: true, event: { plan: 'pro' } });
  });

  it("takes the account only from the session's metadata: a bare client_reference_id (a Payment Link's buyer sets it) names none, and the buyer's e-mail stands in", () => {
    const session = (object: Record<string, unknown>) =>
      toPaymentEvent(
        { id: 'evt_3', type: 'checkout.session.completed', created: 1_700_000_000, data: { object: { mode: 'subscription', payment_status: 'paid', customer: 'cus_b', subscription: 'sub_b', ...object } } },
        PRICES,
      );
    const foreign = session({ client_reference_id: 'acct-victim', customer_details: { email: 'Buyer@Example.com' }, metadata: {} });
    expect(foreign).toMatchObject({ handled: true, event: { reference: { email: 'buyer@example.com' } } });
    expect(foreign.handled && foreign.event.reference).not.toHaveProperty('accountId');
    expect(session({ client_reference_id: 'acct-victim', customer_email: 'buyer@example.com' })).toMatchObject({ event: { reference: { email: 'buyer@example.com' } } });
    // Our own checkout's session: its metadata says whose it is.
    const ours = session({ client_reference_id: 'acct-1', metadata: { account_id: 'acct-1', user_id: 'u-1', email: 'ann@example.com', plan: 'pro' } });
    expect(ours).toMatchObject({ event: { reference: { accountId: 'acct-1', userId: 'u-1', email: 'ann@example.com' } } });
  });
});
