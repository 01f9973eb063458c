// Checkouts and billing portals through the stripe SDK: Stripe on AWS, the
// local Stripe emulator in the local stack (STRIPE_API_BASE names its origin;
// stripe-node takes host, port and protocol rather than a URL). Webhook events
// are read without the SDK (stripe-events.ts). Facts about the API are in
// ../shared/spec/vendor-contracts.md §6.
import Stripe from 'stripe';
import { ConfigError } from '../config.ts';
import { safeVendorCode, VendorError } from '../errors.ts';
import type { CheckoutRequest, Payments } from './payments.ts';
import type { PlanPrices } from './plans.ts';
import { definedStrings } from './stripe-events.ts';

export interface StripeCheckoutSettings {
  secretKey: string;
  /** An origin, e.g. https://api.stripe.com or http://localhost:10001 */
  apiBase: string;
  prices: PlanPrices;
}

export interface StripePolicy {
  /** Per request, in ms. */
  timeoutMs: number;
  /** stripe-node's own retries: connection errors, 409 and 5xx, each with the request's idempotency key. */
  maxNetworkRetries: number;
}

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
      const params: Stripe.Checkout.SessionCreateParams = {
        mode: 'subscription',
        line_items: [{ price, quantity: 1 }],
        ...('id' in request.customer ? { customer: request.customer.id } : { customer_email: request.customer.email }),
        ...(accountId ? { client_reference_id: accountId } : {}),
        metadata,
        subscription_data: { metadata },
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      };
      const create = (idempotencyKey: string) => client.checkout.sessions.create(params, { idempotencyKey });
      let session: Stripe.Checkout.Session;
      let keys = 1;
      try {
        session = await create(request.idempotencyKey).catch((error: unknown) => {
          // Stripe keeps a 500 raised once execution began as the key's answer, and replays it to every
          // retry with that key (docs.stripe.com/idempotency), stripe-node's own retries and the person's
          // next click included. So a 5xx that outlasted those retries gets one attempt under a second key,
          // itself the same for every click in the window. A session the first attempt may have made anyway
          // costs nothing: an unused checkout session expires unpaid.
          if (!(error instanceof Stripe.errors.StripeAPIError) || (error.statusCode ?? 0) < 500) throw error;
          keys += 1;
          return create(`${request.idempotencyKey}-after-500`);
        });
      } catch (error) {
        throw vendorError(operation, error, policy, keys);
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

/** `keys`: how many idempotency keys were tried, each with stripe-node's own retries. */
function vendorError(operation: string, error: unknown, policy: StripePolicy, keys = 1): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  const status = error.statusCode;
  const vendorCode = safeVendorCode(error.code ?? error.rawType);
  const attempts = (policy.maxNetworkRetries + 1) * keys;
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
  return VendorError.rejected('stripe', operation, { status, vendorCode });
}

