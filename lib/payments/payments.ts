// The payment provider as the rest of the service sees it: Stripe in
// production, the local Stripe emulator in the local stack; the same adapters
// talk to both (stripe-payments.ts on the stripe SDK, stripe-events.ts for
// webhook events).
import type { Permission } from '../permissions.ts';
import type { PaidPlan, Plan } from './plans.ts';

/**
 * What a signed-in user needs in an account to start a checkout for it (the checkout route's access rule), and
 * still needs when the payment is applied: a checkout is paid on the provider's page, out of our sight, possibly
 * long after it was started (receive-payment-event.ts).
 */
export const CHECKOUT_PERMISSION = 'billing' satisfies Permission;

/** Who a checkout is for, as written into the session and the subscription it starts. */
export interface CheckoutReference {
  /** The account the subscription is for; absent for the public flow, which links by e-mail on completion. */
  accountId?: string;
  /** The signed-in user who started it. */
  userId?: string;
  /** The buyer's e-mail address (lower case). */
  email: string;
}

export interface CheckoutRequest {
  plan: PaidPlan;
  reference: CheckoutReference;
  /** The account's existing customer at the provider, or the e-mail to prefill for a new one. */
  customer: { id: string } | { email: string };
  /** May contain the provider's literal {CHECKOUT_SESSION_ID} placeholder. */
  successUrl: string;
  cancelUrl: string;
  /** Same key and same request within the provider's window: the same session comes back. */
  idempotencyKey: string;
}

export interface CheckoutSession {
  id: string;
  /** The provider's hosted checkout page. */
  url: string;
}

/**
 * What a subscription is doing, in the provider's words. "Live" statuses are
 * those of a subscription that still bills or may still bill.
 */
export type SubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

const ENDED: readonly SubscriptionStatus[] = ['canceled', 'incomplete_expired'];
export const isLiveSubscription = (status: string | undefined): boolean =>
  status !== undefined && !ENDED.includes(status as SubscriptionStatus);

/** The provider events that change an account's billing. */
export type BillingEventType =
  | 'checkout.session.completed'
  | 'invoice.paid'
  | 'invoice.payment_failed'
  | 'customer.subscription.updated'
  | 'customer.subscription.deleted';

/** One verified provider event, reduced to what it says about a subscription. */
export interface BillingEvent {
  id: string;
  type: BillingEventType;
  /** When the provider created the event (epoch seconds): the order of events, not of their delivery. */
  created: number;
  customerId?: string;
  subscriptionId?: string;
  /** The status this event puts the subscription in. */
  status: SubscriptionStatus;
  /** The plan this event says the subscription is on, when it says. */
  plan?: Plan;
  /**
   * What our own checkout wrote into the session or subscription metadata;
   * absent for subscriptions the service did not start.
   */
  reference?: Partial<CheckoutReference>;
}

export type PaymentEvent =
  | { handled: true; event: BillingEvent }
  /** A correctly signed event of a type (or mode) the service does not act on. */
  | { handled: false; id: string; type: string };

export interface Payments {
  /** Whether this deployment sells the plan (its price is configured). */
  sells(plan: PaidPlan): boolean;

  /** Creates a hosted subscription checkout session. */
  startCheckout(request: CheckoutRequest): Promise<CheckoutSession>;

  /**
   * A session of the provider's customer portal for an existing customer:
   * they change plan, card or cancel there, and the provider tells us through
   * the webhook. `returnUrl` is where its "back" link goes.
   */
  openBillingPortal(request: { customerId: string; returnUrl: string }): Promise<{ url: string }>;

  /**
   * The event of a webhook delivery, verified against the raw body and the
   * signature header before anything is read from it. Throws InvalidInput
   * (invalid_signature) for an unsigned, tampered, wrongly signed or stale delivery.
   */
  verifiedEvent(rawBody: string, signatureHeader: string | undefined): Promise<PaymentEvent>;
}
