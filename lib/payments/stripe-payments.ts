// Payments through the stripe SDK: Stripe on AWS, the local Stripe emulator in
// the local stack (STRIPE_API_BASE names its origin; stripe-node takes host,
// port and protocol rather than a URL). Facts about the API are in
// ../shared/spec/vendor-contracts.md §6.
import Stripe from 'stripe';
import { ConfigError } from '../config.ts';
import { InvalidInput, VendorError } from '../errors.ts';
import type { BillingEvent, BillingEventType, CheckoutRequest, PaymentEvent, Payments, SubscriptionStatus } from './payments.ts';
import { isPaidPlan, planOfPrice, type Plan, type PlanPrices } from './plans.ts';

export interface StripeCheckoutSettings {
  secretKey: string;
  /** An origin, e.g. https://api.stripe.com or http://localhost:10001 */
  apiBase: string;
  prices: PlanPrices;
}

export interface StripeWebhookSettings {
  webhookSecret: string;
  prices: PlanPrices;
}

export interface StripePolicy {
  /** Per request, in ms. */
  timeoutMs: number;
  /** stripe-node's own retries: connection errors, 409 and 5xx, each with the request's idempotency key. */
  maxNetworkRetries: number;
}

/** How old a signed delivery may be: Stripe's own default tolerance. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const STATUSES: readonly SubscriptionStatus[] = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'];

type Json = Record<string, any>;

/** Checkouts through Stripe's API. */
export function stripeCheckout(settings: StripeCheckoutSettings, policy: StripePolicy): Pick<Payments, 'sells' | 'startCheckout' | 'openBillingPortal'> {
  const base = new URL(settings.apiBase);
  if (base.pathname !== '/' || base.search) throw new ConfigError('STRIPE_API_BASE must be an origin without a path');
  // One client per Lambda instance, reused by warm invocations.
  const client = new Stripe(settings.secretKey, {
    host: base.hostname,
    port: base.port || (base.protocol === 'http:' ? 80 : 443),
    protocol: base.protocol === 'http:' ? 'http' : 'https',
    timeout: policy.timeoutMs,
    maxNetworkRetries: policy.maxNetworkRetries,
    telemetry: false,
  });

  return {
    sells: (plan) => Boolean(settings.prices[plan]),

    async startCheckout(request: CheckoutRequest) {
      const price = settings.prices[request.plan];
      if (!price) throw new ConfigError(`STRIPE_PRICE_${request.plan.toUpperCase()} is not set`);
      const { accountId, userId, email } = request.reference;
      // The same links go on the subscription: session metadata does not flow
      // to it, and the invoices and subscription events carry only the subscription's.
      const metadata = definedStrings({ account_id: accountId, user_id: userId, email, plan: request.plan });
      const operation = 'create a checkout session';
      let session: Stripe.Checkout.Session;
      try {
        session = await client.checkout.sessions.create(
          {
            mode: 'subscription',
            line_items: [{ price, quantity: 1 }],
            ...('id' in request.customer ? { customer: request.customer.id } : { customer_email: request.customer.email }),
            ...(accountId ? { client_reference_id: accountId } : {}),
            metadata,
            subscription_data: { metadata },
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
          },
          { idempotencyKey: request.idempotencyKey },
        );
      } catch (error) {
        throw vendorError(operation, error, policy);
      }
      if (!session.url) throw new VendorError('stripe', `stripe: ${operation} answered without a hosted page`, { transient: false, operation });
      return { id: session.id, url: session.url };
    },

    async openBillingPortal({ customerId, returnUrl }) {
      const operation = 'create a billing portal session';
      try {
        const session = await client.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
        return { url: session.url };
      } catch (error) {
        throw vendorError(operation, error, policy);
      }
    },
  };
}

/** Webhook deliveries, verified with the endpoint's signing secret: no API key and no API client needed. */
export function stripeEvents(settings: StripeWebhookSettings): Pick<Payments, 'verifiedEvent'> {
  return {
    async verifiedEvent(rawBody, signatureHeader) {
      let event: Json;
      try {
        // Over the raw body exactly as received: re-serialised JSON would not match the signature.
        event = Stripe.webhooks.constructEvent(rawBody, signatureHeader ?? '', settings.webhookSecret, WEBHOOK_TOLERANCE_SECONDS) as unknown as Json;
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) throw invalidSignature(error.message);
        // Correctly signed, yet not JSON: only someone holding the secret could send it.
        if (error instanceof SyntaxError) throw new InvalidInput('The event is not valid JSON', undefined, 'malformed_event');
        throw error;
      }
      return toPaymentEvent(event, settings.prices);
    },
  };
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
        reference: referenceIn(object.metadata, object.client_reference_id),
      });
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const details = object.parent?.subscription_details;
      // API 2025-03-31.basil moved the subscription under parent; older pinned versions still send it at the top.
      const subscriptionId = idOf(details?.subscription) ?? idOf(object.subscription);
      if (!subscriptionId) return ignored; // a one-off invoice: no subscription to keep current
      const linePrices = ((object.lines?.data ?? []) as Json[]).map((line) => idOf(line.pricing?.price_details?.price) ?? idOf(line.price));
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

function invalidSignature(sdkMessage: string): InvalidInput {
  const reason = /tolerance/i.test(sdkMessage)
    ? 'is too old'
    : /header value was provided|extract timestamp|expected scheme/i.test(sdkMessage)
      ? 'is missing or malformed'
      : 'does not match the payload';
  return new InvalidInput(
    'The webhook signature is missing, invalid or too old',
    [{ path: '/headers/stripe-signature', message: reason }],
    'invalid_signature',
  );
}

function vendorError(operation: string, error: unknown, policy: StripePolicy): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  const status = error.statusCode;
  const vendorCode = safeCode(error.code ?? error.rawType);
  const attempts = policy.maxNetworkRetries + 1;
  const gaveUp = `(gave up after ${attempts} attempt${attempts === 1 ? '' : 's'})`;
  if (error instanceof Stripe.errors.StripeConnectionError) {
    const reason = /timeout/i.test(error.message) ? 'timed out' : 'could not be reached';
    return new VendorError('stripe', `stripe: ${operation} ${reason} ${gaveUp}`, { transient: true, operation, attempts });
  }
  if (error instanceof Stripe.errors.StripeRateLimitError) {
    // stripe-node does not retry a plain 429; neither does a person waiting on a redirect.
    return new VendorError('stripe', `stripe: ${operation} was throttled (429)`, { transient: true, operation, status, vendorCode });
  }
  if (status !== undefined && status >= 500) {
    return new VendorError('stripe', `stripe: ${operation} answered ${status} ${gaveUp}`, {
      transient: true,
      operation,
      status,
      vendorCode,
      attempts,
    });
  }
  return new VendorError('stripe', `stripe: ${operation} was refused (${status ?? 'no status'}${vendorCode ? ` ${vendorCode}` : ''})`, {
    transient: false,
    operation,
    status,
    vendorCode,
  });
}

const idOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value ? value : value && typeof value === 'object' && typeof (value as Json).id === 'string' ? (value as Json).id : undefined;

const paidPlanIn = (metadata: Json | null | undefined) => {
  const plan = metadata?.plan;
  return isPaidPlan(plan) ? plan : undefined;
};

function referenceIn(metadata: Json | null | undefined, clientReferenceId?: unknown): BillingEvent['reference'] {
  const reference = definedStrings({
    accountId: str(metadata?.account_id) ?? str(clientReferenceId),
    userId: str(metadata?.user_id),
    email: str(metadata?.email)?.toLowerCase(),
  });
  return Object.keys(reference).length ? reference : undefined;
}

const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/** Only the codes' own characters: a vendor's error text never reaches a message. */
const safeCode = (code: unknown) => (typeof code === 'string' && /^[a-z0-9_.-]{1,64}$/i.test(code) ? code : undefined);

function definedStrings<T extends Record<string, string | undefined>>(fields: T): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => typeof v === 'string' && v !== '')) as Record<string, string>;
}

function definedFields<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}
