// Checkout and the payment webhook as tests drive them: the Stripe emulator's
// hosted page driven as a browser drives it, its events rendered but delivered
// by the test, signed with the stripe SDK's own test-header helper.
import Stripe from 'stripe';
import { expect } from 'vitest';
import { api, stack } from './http.ts';
import { row } from './stack-db.ts';
import { bearer, signedInUser } from './users.ts';

export const memberOf = (email: string) => row('members', { email });
export const accountRow = async (id: string) => (await row('accounts', { id }))!;
/** The payment webhook's delivery row of a Stripe event (webhook_events, the delivery log every webhook shares). */
export const paymentEventRow = (id: string) => row('webhook_events', { event_key: `stripe#${id}` });

/**
 * Pays on the emulator's hosted page as a browser does: load the page, submit its form.
 * `delivery` names the order of the purchase's events (the emulator's local form field), e.g.
 * 'invoice.paid,checkout.session.completed,invoice.paid'; by default they come in a random order.
 */
export async function payOnHostedPage(url: string, delivery?: string): Promise<Response> {
  const html = await (await fetch(url)).text();
  expect(html).toMatch(/<button type="submit" id="pay">Pay /);
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const card = /name="card" value="([^"]*)"/.exec(html)![1]!;
  return fetch(new URL(action, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card, ...(delivery ? { delivery } : {}) }),
    redirect: 'manual',
  });
}

/** A signed-in user who bought a plan through the whole flow; answers their account and its Stripe ids. */
export async function purchase(plan = 'pro', delivery?: string) {
  const user = await signedInUser();
  const start = await user.client.get(`/api/checkout?plan=${plan}`, bearer(user.accessToken));
  expect(start.status).toBe(303);
  const paid = await payOnHostedPage(start.headers.get('location')!, delivery);
  expect(paid.status).toBe(303);
  const accountId = (await memberOf(user.email))!.account_id as string;
  const account = await accountRow(accountId);
  return { user, accountId, customer: account.stripe_customer_id as string, subscription: account.subscription_id as string };
}

/** An event the emulator renders for a subscription, not delivered: the test delivers it. */
export async function emulatorEvent(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${stack().urls.emulators}/_local/stripe/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ deliver: false, ...body }),
  });
  expect(res.status).toBe(201);
  return JSON.stringify(((await res.json()) as { event: unknown }).event, null, 2);
}

/** A Stripe-Signature header for the payload (the stack's webhook secret unless told otherwise). */
export const signStripe = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
  Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? stack().env.STRIPE_WEBHOOK_SECRET!, timestamp: options.timestamp });

/** Delivers a payload to the payment webhook as Stripe does; no signature header when `signature` is undefined. */
export const deliverPayment = (payload: string, signature?: string) =>
  api('/webhooks/payments', {
    method: 'POST',
    raw: payload,
    headers: { 'content-type': 'application/json; charset=utf-8', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
  });

/**
 * A checkout's Stripe Idempotency-Key is per one-minute bucket
 * (IDEMPOTENCY_WINDOW_SECONDS in lib/checkout/start-checkout.ts): clicks either
 * side of a bucket's edge are two clicks by design. A burst that must count as
 * one click starts well clear of the edge; this waits, it asserts nothing.
 */
export async function clearOfCheckoutBucketEdge(marginMs = 10_000) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 100));
}
