import { createHash } from 'node:crypto';
import { normaliseEmail, type AccountStore } from '../accounts/accounts.ts';
import type { MembershipStore } from '../accounts/memberships.ts';
import { openFirstAccountFor } from '../accounts/open-account.ts';
import { ConfigError, type RateLimit } from '../config.ts';
import { Forbidden, InvalidInput, NotFound } from '../errors.ts';
import type { Grant } from '../access/caller.ts';
import { chooseFreePlan, updateBilling, type BillingStore } from '../payments/billing.ts';
import type { CheckoutRequest, Payments } from '../payments/payments.ts';
import { isPaidPlan, PAID_PLANS, planFrom, PLANS, type PaidPlan } from '../payments/plans.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';

export interface CheckoutSettings {
  /** The dashboard's origin: the only place, besides the provider's page, a checkout redirects to. */
  dashboardUrl: string;
  /** Public checkout sessions per client IP. */
  publicSessionLimit: RateLimit;
}

export interface CheckoutDeps {
  payments: Pick<Payments, 'sells' | 'startCheckout'>;
  accounts: Pick<AccountStore, 'getAccount' | 'saveAccountDetails' | 'claimMember'>;
  memberships: Pick<MembershipStore, 'join' | 'get'>;
  billing: Pick<BillingStore, 'billingOf' | 'saveBilling'>;
  settings: CheckoutSettings;
  now?: () => Date;
  newId?: () => string;
}

export interface Redirect {
  status: 302 | 303;
  location: string;
}

export interface CheckoutRedirectRequest {
  /** Who is calling, and the account they may buy for (the route's access rule: owners and admins). */
  grant: Grant;
  plan: string | undefined;
  /** This request's own URL, built from the API's configured origin (never from request headers). */
  requestUrl: string;
}

/**
 * GET /api/checkout?plan=...[&accountId=...]
 * 1. Without a bearer token the provider accepts: 302 to the dashboard's signup, which comes back here.
 * 2. A signed-in user must have confirmed their e-mail; the plan must be one we have (400).
 * 3. The account is the one the access rule granted; a user with none opens their first now, as
 *    its owner, so the payment is tied to an account before it happens. Its Stripe customer is
 *    offered only to its billing managers.
 * 4. `free` is recorded at once (to the dashboard); a paid plan starts a hosted checkout (303).
 */
export async function checkoutRedirect(deps: CheckoutDeps, request: CheckoutRedirectRequest): Promise<Redirect> {
  const dashboard = dashboardOf(deps.settings);
  const { caller } = request.grant;
  if (caller.kind !== 'user') return { status: 302, location: `${dashboard}/signup?redirect=${encodeURIComponent(request.requestUrl)}` };
  const user = caller.user;
  if (!user.emailConfirmed) throw new Forbidden('Confirm your e-mail address before choosing a plan', 'email_not_confirmed');

  const plan = planFrom(request.plan);
  if (!plan) throw invalidPlan('/query/plan', PLANS);
  const email = normaliseEmail(user.email);
  const granted = request.grant.account;
  const account = granted ? await deps.accounts.getAccount(granted.id) : await openFirstAccountFor(deps, user);
  if (!account) throw new NotFound('No such account, or not one you belong to');

  if (plan === 'free') {
    await updateBilling(deps.billing, account.id, chooseFreePlan);
    return { status: 303, location: `${dashboard}/dashboard` };
  }
  assertSold(deps, plan, '/query/plan');
  const session = await deps.payments.startCheckout(
    withIdempotencyKey(
      {
        plan,
        reference: { accountId: account.id, userId: user.id, email },
        // A returning customer pays with what Stripe already knows of them.
        customer: account.stripe_customer_id ? { id: account.stripe_customer_id } : { email },
        ...returnUrls(dashboard, plan),
      },
      deps.now?.() ?? new Date(),
    ),
  );
  return { status: 303, location: session.url };
}

export interface PublicCheckoutRequest {
  planId: string;
  email: string;
  clientIp: string;
}

/**
 * POST /api/checkout/session { planId, email } (public).
 * Nothing is written for the address here: anyone may type any address. The
 * session carries it (and the plan) in its metadata, and the account is
 * linked when the payment completes (receive-payment-event.ts): the account of
 * the member with that address, or a new one. An existing Stripe customer is
 * never offered to an anonymous caller: the page would show their saved cards.
 */
export async function createPublicCheckout(deps: Pick<CheckoutDeps, 'payments' | 'settings' | 'now'> & { limiter: RateLimiter }, request: PublicCheckoutRequest) {
  const dashboard = dashboardOf(deps.settings);
  // Each session is a call to Stripe's rate-limited API on our key.
  await enforceRateLimits(deps.limiter, [{ rule: { name: 'checkout-session-ip', ...deps.settings.publicSessionLimit }, subject: request.clientIp }]);
  const plan = planFrom(request.planId);
  if (!isPaidPlan(plan)) throw invalidPlan('/body/planId', PAID_PLANS);
  assertSold(deps, plan, '/body/planId');
  const email = normaliseEmail(request.email);
  const session = await deps.payments.startCheckout(
    withIdempotencyKey({ plan, reference: { email }, customer: { email }, ...returnUrls(dashboard, plan) }, deps.now?.() ?? new Date()),
  );
  return { url: session.url };
}

/** How long a repeated request counts as the same click (see checkoutIdempotencyKey). */
export const IDEMPOTENCY_WINDOW_SECONDS = 60;

/**
 * The Idempotency-Key of a checkout. A double click sends the same request
 * twice within moments, and Stripe answers a key it has seen (for about 24 h)
 * with the session it created the first time; so the key is derived from who
 * buys what (account, user, e-mail, plan) within a one-minute bucket. Short,
 * because a deliberate retry later (the session was abandoned or paid) should
 * get a fresh session, not the old answer. Clicks either side of a bucket's
 * edge make two sessions; the unused one expires unpaid. The whole request is
 * part of the key, because Stripe refuses a key reused with other parameters
 * (e.g. when the account has meanwhile become a customer).
 */
export function checkoutIdempotencyKey(request: Omit<CheckoutRequest, 'idempotencyKey'>, now: Date): string {
  const bucket = Math.floor(now.getTime() / 1000 / IDEMPOTENCY_WINDOW_SECONDS);
  const digest = createHash('sha256')
    .update(JSON.stringify([request.plan, request.reference, request.customer, request.successUrl, request.cancelUrl]))
    .digest('base64url');
  return `checkout-${bucket}-${digest}`;
}

const withIdempotencyKey = (request: Omit<CheckoutRequest, 'idempotencyKey'>, now: Date): CheckoutRequest => ({
  ...request,
  idempotencyKey: checkoutIdempotencyKey(request, now),
});

/** Stripe fills in {CHECKOUT_SESSION_ID} itself: it must reach it literally, not URL-encoded. */
const returnUrls = (dashboard: string, plan: PaidPlan) => ({
  successUrl: `${dashboard}/?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
  cancelUrl: `${dashboard}/?checkout=canceled&plan=${plan}`,
});

function dashboardOf(settings: CheckoutSettings): string {
  if (!settings.dashboardUrl) throw new ConfigError('DASHBOARD_URL is required for checkout');
  return settings.dashboardUrl;
}

function assertSold(deps: Pick<CheckoutDeps, 'payments'>, plan: PaidPlan, path: string): void {
  if (!deps.payments.sells(plan)) {
    throw new InvalidInput(`The ${plan} plan is not sold here`, [{ path, message: 'is not available' }], 'plan_unavailable');
  }
}

const invalidPlan = (path: string, plans: readonly string[]) =>
  new InvalidInput('Choose one of the plans', [{ path, message: `must be one of: ${plans.join(', ')}` }], 'invalid_plan');
