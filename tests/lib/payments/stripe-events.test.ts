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
});
