// Checkout and the payment webhook as tests drive them: the Stripe emulator's
// hosted page driven as a browser drives it, its events rendered but delivered
// by the test, signed with the stripe SDK's own test-header helper.
import { DescribeExecutionCommand, ExecutionDoesNotExist, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import Stripe from 'stripe';
import { expect } from 'vitest';
import { paymentJobName } from '../../lib/payments/payment-queue.ts';
import { api, stack, type Reply } from './http.ts';
import { memberRecordOf, row } from './stack-db.ts';
import { bearer, signedInUser } from './users.ts';
import { eventually, stackSfn } from './webhooks.ts';

export const PAYMENTS_MACHINE = 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-local-payments';

/**
 * Waits until the payments state machine has applied what the payment webhook
 * queued: the execution of this event, or, without one, every payments
 * execution running now (the events the Stripe emulator delivered itself).
 */
export async function paymentsApplied(eventId?: string): Promise<void> {
  const sfn = stackSfn();
  if (eventId) {
    const executionArn = `${PAYMENTS_MACHINE.replace(':stateMachine:', ':execution:')}:${paymentJobName(eventId)}`;
    await eventually(async () => {
      const status = await sfn.send(new DescribeExecutionCommand({ executionArn })).then(
        (r) => r.status,
        (error: unknown) => {
          if (error instanceof ExecutionDoesNotExist) return 'none'; // not queued: refused or ignored
          throw error;
        },
      );
      expect(status).not.toBe('RUNNING');
    }, 100);
    return;
  }
  await eventually(async () => {
    const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn: PAYMENTS_MACHINE, statusFilter: 'RUNNING' }));
    expect(executions).toEqual([]);
  }, 100);
}

export const accountRow = async (id: string) => (await row('accounts', { id }))!;
/** The payment webhook's delivery row of a Stripe event (webhook_events, the delivery log every webhook shares). */
export const paymentEventRow = (id: string) => row('webhook_events', { event_key: `stripe#${id}` });

/**
 * Pays on the emulator's hosted page as a browser does: load the page, submit its form;
 * then waits for the events the emulator delivered to be applied. `delivery` names the order of the purchase's events (the emulator's local form field), e.g.
 * 'invoice.paid,checkout.session.completed,invoice.paid'; by default they come in a random order.
 */
export async function payOnHostedPage(url: string, delivery?: string): Promise<Response> {
  const html = await (await fetch(url)).text();
  expect(html).toMatch(/<button type="submit" id="pay">Pay /);
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const card = /name="card" value="([^"]*)"/.exec(html)![1]!;
  const paid = await fetch(new URL(action, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card, ...(delivery ? { delivery } : {}) }),
    redirect: 'manual',
  });
  await paymentsApplied();
  return paid;
}

/** A signed-in user who bought a plan through the whole flow; answers their account and its Stripe ids. */
export async function purchase(plan = 'pro', delivery?: string) {
  const user = await signedInUser();
  const start = await user.client.get(`/api/checkout?plan=${plan}`, bearer(user.accessToken));
  expect(start.status).toBe(303);
  const paid = await payOnHostedPage(start.headers.get('location')!, delivery);
  expect(paid.status).toBe(303);
  const accountId = (await memberRecordOf(user.email))!.account_id as string;
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

/**
 * Delivers a payload to the payment webhook as Stripe does (no signature header when `signature` is
 * undefined), then waits for the payments state machine to have applied the event, if it was queued.
 */
export async function deliverPayment(payload: string, signature?: string): Promise<Reply> {
  const reply = await api('/webhooks/payments', {
    method: 'POST',
    raw: payload,
    headers: { 'content-type': 'application/json; charset=utf-8', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
  });
  const id = (() => {
    try {
      return (JSON.parse(payload) as { id?: unknown }).id;
    } catch {
      return undefined;
    }
  })();
  if (reply.status === 200 && typeof id === 'string') await paymentsApplied(id);
  return reply;
}

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
