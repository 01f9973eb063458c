// Stripe's webhook deliveries: the signature checked and the event read into
// the service's terms, without the stripe SDK (the payment webhook's cold start
// loaded all of it for one HMAC; lib/webhooks/signatures.ts). Facts about the
// events are in ../shared/spec/vendor-contracts.md §6.
import { InvalidInput } from '../errors.ts';
import { checkTimestampedHex, type TimestampedRefusal } from '../webhooks/signatures.ts';
import type { BillingEvent, BillingEventType, PaymentEvent, Payments, SubscriptionStatus } from './payments.ts';
import { isPaidPlan, planOfPrice, type Plan, type PlanPrices } from './plans.ts';

export interface StripeWebhookSettings {
  webhookSecret: string;
  prices: PlanPrices;
}

/** How old a signed delivery may be: Stripe's own default tolerance. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const STATUSES: readonly SubscriptionStatus[] = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'];

type Json = Record<string, any>;

/**
 * Webhook deliveries, verified with the endpoint's signing secret (no API key
 * or client needed): "Stripe-Signature: t=<unix>,v1=<hex>", each v1 the hex
 * HMAC-SHA256 of "<t>.<raw body>" keyed with the secret as written (whsec_…);
 * any v1 may match, and t may be at most 300 s old. That is what stripe-node's
 * constructEvent checks (its Webhooks.ts); the tests hold the two to the same
 * answers for its own signer's headers, rolled secrets, forgeries and replays.
 * The check is laxer only in spelling (upper-case hex, spaces around items),
 * never in the HMAC or the age, and takes the first t where stripe-node takes
 * the last (Stripe sends one).
 */
export function stripeEvents(settings: StripeWebhookSettings, now: () => Date = () => new Date()): Pick<Payments, 'verifiedEvent'> {
  return {
    async verifiedEvent(rawBody, signatureHeader) {
      // Over the raw body exactly as received: re-serialised JSON would not match the signature.
      const refusal = checkTimestampedHex(signatureHeader, settings.webhookSecret, rawBody, now(), { seconds: WEBHOOK_TOLERANCE_SECONDS, future: 'allowed' });
      if (refusal) throw invalidSignature(refusal);
      let event: unknown;
      try {
        event = JSON.parse(rawBody);
      } catch {
        // Correctly signed, yet not JSON: only someone holding the secret could send it.
        throw new InvalidInput('The event is not valid JSON', undefined, 'malformed_event');
      }
      if (!event || typeof event !== 'object' || Array.isArray(event)) throw new InvalidInput('The event is not a JSON object', undefined, 'malformed_event');
      return toPaymentEvent(event as Json, settings.prices);
    },
  };
}

const REASONS: Record<NonNullable<TimestampedRefusal>, string> = {
  malformed: 'is missing or malformed',
  stale: 'is too old',
  mismatch: 'does not match the payload',
};

function invalidSignature(refusal: NonNullable<TimestampedRefusal>): InvalidInput {
  return new InvalidInput(
    'The webhook signature is missing, invalid or too old',
    [{ path: '/headers/stripe-signature', message: REASONS[refusal] }],
    'invalid_signature',
  );
}

/** Reads an event defensively: API versions differ in where they put things. */
export function toPaymentEvent(event: Json, prices: PlanPrices): PaymentEvent {
  const ignored: PaymentEvent = { handled: false, id: String(event.id), type: String(event.type) };
  const object: Json = event.data?.object ?? {};
  const handled = (type: BillingEventType, fields: Omit<BillingEvent, 'id' | 'type' | 'created'>): PaymentEvent => ({
    handled: true,
    event: { id: String(event.id), type, created: Number(event.created), ...definedFields(fields) },
  });
  if (typeof event.id !== 'string' || !Number.isFinite(Number(event.created))) return ignored;

  switch (event.type) {
    case 'checkout.session.completed': {
      if (object.mode !== 'subscription') return ignored;
      return handled('checkout.session.completed', {
        customerId: idOf(object.customer),
        subscriptionId: idOf(object.subscription),
        status: object.payment_status === 'paid' || object.payment_status === 'no_payment_required' ? 'active' : 'incomplete',
        plan: paidPlanIn(object.metadata),
        // Not client_reference_id: a Payment Link or Pricing Table lets the buyer set it. Without our metadata the
        // session is a purchase like a public checkout's, by the e-mail the buyer gave Stripe.
        reference: referenceIn(object.metadata, str(object.customer_details?.email) ?? str(object.customer_email)),
      });
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const details = object.parent?.subscription_details;
      // API 2025-03-31.basil moved the subscription under parent; older pinned versions still send it at the top.
      const subscriptionId = idOf(details?.subscription) ?? idOf(object.subscription);
      if (!subscriptionId) return ignored; // a one-off invoice: no subscription to keep current
      const lines: unknown[] = Array.isArray(object.lines?.data) ? object.lines.data : [];
      const linePrices = lines.map((line) => (line && typeof line === 'object' ? (idOf((line as Json).pricing?.price_details?.price) ?? idOf((line as Json).price)) : undefined));
      const failedFirst = event.type === 'invoice.payment_failed' && object.billing_reason === 'subscription_create';
      return handled(event.type, {
        customerId: idOf(object.customer),
        subscriptionId,
        // A failed first invoice leaves the subscription incomplete; a failed renewal makes it past due.
        status: event.type === 'invoice.paid' ? 'active' : failedFirst ? 'incomplete' : 'past_due',
        plan: linePrices.map((p) => planOfPrice(prices, p)).find(Boolean) ?? paidPlanIn(details?.metadata),
        reference: referenceIn(details?.metadata),
      });
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const deleted = event.type === 'customer.subscription.deleted';
      const status = deleted ? 'canceled' : STATUSES.find((s) => s === object.status);
      if (!status) return ignored;
      const price = idOf(object.items?.data?.[0]?.price);
      return handled(event.type, {
        customerId: idOf(object.customer),
        subscriptionId: idOf(object.id),
        status,
        // The price says what is paid for now (a plan change in the billing portal changes it, not the metadata).
        plan: deleted ? ('free' satisfies Plan) : (planOfPrice(prices, price) ?? paidPlanIn(object.metadata)),
        reference: referenceIn(object.metadata),
      });
    }
    default:
      return ignored;
  }
}

const idOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value ? value : value && typeof value === 'object' && typeof (value as Json).id === 'string' ? (value as Json).id : undefined;

const paidPlanIn = (metadata: Json | null | undefined) => {
  const plan = metadata?.plan;
  return isPaidPlan(plan) ? plan : undefined;
};

/**
 * Who a payment is for, from what the service itself put on the session or subscription (its metadata: only
 * our checkout, or the agency on its own Stripe account, writes it); `buyerEmail` stands in for a session
 * the service did not make.
 */
function referenceIn(metadata: Json | null | undefined, buyerEmail?: string): BillingEvent['reference'] {
  const reference = definedStrings({
    accountId: str(metadata?.account_id),
    userId: str(metadata?.user_id),
    email: (str(metadata?.email) ?? buyerEmail)?.toLowerCase(),
  });
  return Object.keys(reference).length ? reference : undefined;
}

const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

export function definedStrings<T extends Record<string, string | undefined>>(fields: T): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => typeof v === 'string' && v !== '')) as Record<string, string>;
}

function definedFields<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}
