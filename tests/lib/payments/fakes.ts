// In-memory payments ports. Each yields to the event loop where the real
// adapter waits on the network, so concurrent callers interleave as they
// would against DynamoDB; each write is decided atomically, as a conditional write is.
import type { Account } from '../../../lib/accounts/accounts.ts';
import { InvalidInput } from '../../../lib/errors.ts';
import type { Billing, BillingStore } from '../../../lib/payments/billing.ts';
import type { BillingEvent, CheckoutRequest, CheckoutSession, PaymentEvent, Payments } from '../../../lib/payments/payments.ts';
import type { PaymentQueue } from '../../../lib/payments/payment-queue.ts';
import type { PaidPlan } from '../../../lib/payments/plans.ts';
import { applyPaymentEventOnce, receivePaymentEvent, type ApplyPaymentDeps, type DeliveryOutcome, type PaymentDelivery } from '../../../lib/payments/receive-payment-event.ts';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Billing kept on the same account objects an AccountStore fake holds. */
export function fakeBilling(accounts: Map<string, Account>): BillingStore & { writes: number } {
  const store = {
    writes: 0,
    async billingOf(accountId: string) {
      await tick();
      const a = accounts.get(accountId);
      if (!a) return undefined;
      return {
        plan: a.plan,
        customerId: a.stripe_customer_id,
        subscriptionId: a.subscription_id,
        status: a.subscription_status,
        eventAt: a.billing_event_at,
        recentEvents: [...(a.billing_events ?? [])],
        version: a.billing_version ?? 0,
      };
    },
    async saveBilling(accountId: string, expectedVersion: number, next: Billing) {
      await tick();
      const a = accounts.get(accountId);
      if (!a || (a.billing_version ?? 0) !== expectedVersion) return false;
      store.writes++;
      accounts.set(accountId, {
        ...a,
        plan: next.plan,
        stripe_customer_id: next.customerId,
        subscription_id: next.subscriptionId,
        subscription_status: next.status,
        billing_event_at: next.eventAt,
        billing_events: [...next.recentEvents],
        billing_version: expectedVersion + 1,
      });
      return true;
    },
    async accountForCustomer(customerId: string) {
      await tick();
      return [...accounts.values()].find((a) => a.stripe_customer_id === customerId)?.id;
    },
  };
  return store;
}

export const GOOD_SIGNATURE = 't=1,v1=good';

/**
 * Payments that sell the given plans and, like Stripe, answer a repeated
 * idempotency key with the first session. Deliveries are PaymentEvents as JSON,
 * "signed" when the signature is GOOD_SIGNATURE (the real scheme is tested on the adapter).
 */
export function fakePayments(sold: PaidPlan[] = ['starter', 'pro', 'enterprise']): Payments & { requests: CheckoutRequest[]; sessions: Map<string, CheckoutSession> } {
  const requests: CheckoutRequest[] = [];
  const sessions = new Map<string, CheckoutSession>();
  return {
    requests,
    sessions,
    sells: (plan) => sold.includes(plan),
    async startCheckout(request) {
      await tick();
      requests.push(request);
      let session = sessions.get(request.idempotencyKey);
      if (!session) {
        const id = `cs_test_${sessions.size + 1}`;
        session = { id, url: `https://checkout.test/pay/${id}` };
        sessions.set(request.idempotencyKey, session);
      }
      return session;
    },
    async openBillingPortal({ customerId, returnUrl }) {
      await tick();
      return { url: `https://billing.test/p/${customerId}?return=${encodeURIComponent(returnUrl)}` };
    },
    async verifiedEvent(rawBody, signature) {
      if (signature !== GOOD_SIGNATURE) {
        throw new InvalidInput('The webhook signature is missing, invalid or too old', undefined, 'invalid_signature');
      }
      return JSON.parse(rawBody) as PaymentEvent;
    },
  };
}

export const signed = (event: BillingEvent | PaymentEvent, signature = GOOD_SIGNATURE) => ({
  rawBody: JSON.stringify('handled' in event ? event : { handled: true, event }),
  signature,
});

/**
 * The payment webhook and its state machine's step at once: the delivery is
 * verified and queued (receivePaymentEvent), and every enqueue runs the step
 * (applyPaymentEventOnce) as the machine would; a name enqueued again stands
 * for the step run again (a retry), so the step's own once-only rules are
 * what these tests hold. Answers the step's outcome, or 'ignored'.
 */
export async function receiveAndApply(
  deps: ApplyPaymentDeps & { payments: Pick<Payments, 'verifiedEvent'> },
  delivery: PaymentDelivery,
): Promise<DeliveryOutcome | 'ignored'> {
  let outcome: DeliveryOutcome | undefined;
  const queue: PaymentQueue = {
    async enqueue(_name, job) {
      outcome = await applyPaymentEventOnce(deps, job.event);
      return 'queued';
    },
  };
  const answer = await receivePaymentEvent({ payments: deps.payments, queue, log: deps.log }, delivery);
  return answer === 'ignored' ? 'ignored' : outcome!;
}
