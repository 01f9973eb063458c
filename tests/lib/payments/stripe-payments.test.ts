// The Stripe adapters against the local Stripe emulator, checkouts through the
// stripe SDK itself (no mock of the SDK anywhere); webhook fixtures are signed
// with the SDK's own test-header helper, and the events adapter (no SDK) is
// held to the SDK's constructEvent answers.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/config.ts';
import { InvalidInput, VendorError } from '../../../lib/errors.ts';
import type { CheckoutRequest, PaymentEvent } from '../../../lib/payments/payments.ts';
import { stripeEvents, type StripeWebhookSettings } from '../../../lib/payments/stripe-events.ts';
import { stripeCheckout, type StripeCheckoutSettings } from '../../../lib/payments/stripe-payments.ts';
import { stripeVendor } from '../../../local/emulators/stripe.ts';
import { useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(stripeVendor);
type StripeSettings = StripeCheckoutSettings & StripeWebhookSettings;
const settings = (overrides: Partial<StripeSettings> = {}): StripeSettings => ({
  secretKey: emu.env.STRIPE_SECRET_KEY!,
  webhookSecret: emu.env.STRIPE_WEBHOOK_SECRET!,
  apiBase: emu.env.STRIPE_API_BASE!,
  prices: { starter: emu.env.STRIPE_PRICE_STARTER, pro: emu.env.STRIPE_PRICE_PRO, enterprise: emu.env.STRIPE_PRICE_ENTERPRISE },
  ...overrides,
});
const payments = (overrides: Partial<StripeSettings> = {}, maxNetworkRetries = 1, timeoutMs = 2000) =>
  ({ ...stripeCheckout(settings(overrides), { timeoutMs, maxNetworkRetries }), ...stripeEvents(settings(overrides)) });

const email = () => `${crypto.randomUUID()}@example.com`;
const request = (overrides: Partial<CheckoutRequest> = {}): CheckoutRequest => {
  const address = email();
  return {
    plan: 'pro',
    reference: { accountId: crypto.randomUUID(), userId: 'user-1', email: address },
    customer: { email: address },
    successUrl: 'https://app.test/?checkout=success&session_id={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://app.test/?checkout=canceled&plan=pro',
    idempotencyKey: `checkout-${crypto.randomUUID()}`,
    ...overrides,
  };
};
const recordedSession = async (id: string) => (await emu.get<any[]>('payments')).find((s) => s.id === id);

async function failure(promise: Promise<unknown>): Promise<VendorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VendorError);
  return error as VendorError;
}

describe('the Stripe payments adapter: checkout', () => {
  it('creates a subscription session for the plan, linked to the account and user, with the literal session placeholder', async () => {
    const req = request();
    const session = await payments().startCheckout(req);
    expect(session.id).toMatch(/^cs_test_/);
    expect(session.url).toBe(`${emu.url}/stripe/pay/${session.id}`);
    const links = { account_id: req.reference.accountId, user_id: 'user-1', email: req.reference.email, plan: 'pro' };
    expect(await recordedSession(session.id)).toMatchObject({
      mode: 'subscription',
      line_items: [{ price: 'price_local_pro', quantity: 1 }],
      client_reference_id: req.reference.accountId,
      customer: null,
      customer_email: req.reference.email,
      metadata: links,
      subscription_data: { metadata: links },
      success_url: 'https://app.test/?checkout=success&session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://app.test/?checkout=canceled&plan=pro',
    });
  });

  it('reuses an existing customer instead of an e-mail', async () => {
    const first = await payments().startCheckout(request());
    await fetch(first.url, { method: 'POST', redirect: 'manual' });
    const customer = (await recordedSession(first.id)).customer as string;
    expect(customer).toMatch(/^cus_/);
    const second = await payments().startCheckout(request({ customer: { id: customer } }));
    expect(await recordedSession(second.id)).toMatchObject({ customer, customer_email: null });
  });

  it('writes no account into a public session: only the e-mail and the plan', async () => {
    const address = email();
    const session = await payments().startCheckout(request({ reference: { email: address }, customer: { email: address }, plan: 'starter' }));
    const recorded = await recordedSession(session.id);
    expect(recorded).toMatchObject({ client_reference_id: null, metadata: { email: address, plan: 'starter' }, line_items: [{ price: 'price_local_starter' }] });
    expect(recorded.metadata).not.toHaveProperty('account_id');
  });

  it('gets the same session for the same idempotency key and request; refuses the key for another request', async () => {
    const req = request();
    const a = await payments().startCheckout(req);
    const b = await payments().startCheckout(req);
    expect(b.id).toBe(a.id);
    const error = await failure(payments().startCheckout({ ...request(), idempotencyKey: req.idempotencyKey }));
    expect(error.context).toMatchObject({ transient: false, status: 400, vendorCode: 'idempotency_error' });
  });

  it('tells which plans it sells, and refuses to sell one without a price', async () => {
    const some = payments({ prices: { pro: 'price_local_pro' } });
    expect(some.sells('pro')).toBe(true);
    expect(some.sells('enterprise')).toBe(false);
    await expect(some.startCheckout(request({ plan: 'enterprise' }))).rejects.toThrow(ConfigError);
    expect(() => payments({ apiBase: `${emu.url}/v1` })).toThrow(/STRIPE_API_BASE/);
  });

  it("retries a 5xx with the request's own key, then a second key, and reports one that lasts as transient, without Stripe's text", async () => {
    const req = request();
    await emu.fault({ vendor: 'stripe', mode: 'fail', count: 1, match: req.reference.accountId });
    const session = await payments({}, 1).startCheckout(req);
    expect((await emu.get<any[]>('payments')).filter((s) => s.client_reference_id === req.reference.accountId)).toHaveLength(1);
    expect(session.url).toContain(session.id);

    const lasting = request();
    await emu.fault({ vendor: 'stripe', mode: 'fail', count: 5, match: lasting.reference.accountId });
    const error = await failure(payments({}, 1).startCheckout(lasting));
    // Two attempts under the request's key, two under the second key.
    expect(error.message).toBe('stripe: create a checkout session answered 500 (gave up after 4 attempts)');
    expect(error.context).toMatchObject({ transient: true, status: 500, attempts: 4 });
    await emu.reset();
  });

  it('gets past a 500 that Stripe saved against the key: the same key only replays it, so the last attempt takes a fresh one', async () => {
    const req = request();
    await emu.fault({ vendor: 'stripe', mode: 'fail-in-execution', count: 1, match: req.reference.accountId });
    const session = await payments({}, 1).startCheckout(req);
    expect(session.url).toContain(session.id);
    expect((await emu.get<any[]>('payments')).filter((s) => s.client_reference_id === req.reference.accountId)).toEqual([expect.objectContaining({ id: session.id })]);
    // A second click in the same window: the saved 500 again, then the fresh key's session.
    expect((await payments({}, 1).startCheckout(req)).id).toBe(session.id);

    const lasting = request();
    await emu.fault({ vendor: 'stripe', mode: 'fail-in-execution', count: 5, match: lasting.reference.accountId });
    const error = await failure(payments({}, 1).startCheckout(lasting));
    expect(error.context).toMatchObject({ transient: true, status: 500, attempts: 4 });
    await emu.reset();
  });

  it('does not retry a 429 (as stripe-node does not), and says it was throttled', async () => {
    const req = request();
    await emu.fault({ vendor: 'stripe', mode: 'throttle', count: 1, match: req.reference.accountId });
    const error = await failure(payments({}, 2).startCheckout(req));
    expect(error.message).toBe('stripe: create a checkout session was throttled (429)');
    expect(error.context).toMatchObject({ transient: true, status: 429, vendorCode: 'rate_limit' });
    // The fault was used up by the one attempt: a retry would have succeeded.
    expect((await payments().startCheckout(req)).id).toMatch(/^cs_test_/);
  });

  it('gives up on a hung API after its timeout, and reports refusals as permanent', async () => {
    const req = request();
    await emu.fault({ vendor: 'stripe', mode: 'hang', count: 1, match: req.reference.accountId });
    const hung = await failure(payments({}, 0, 300).startCheckout(req));
    expect(hung.message).toBe('stripe: create a checkout session timed out (gave up after 1 attempt)');
    expect(hung.context.transient).toBe(true);
    await emu.reset();

    const badPrice = await failure(payments({ prices: { pro: 'price_missing' } }).startCheckout(request()));
    expect(badPrice.context).toMatchObject({ transient: false, status: 400, vendorCode: 'resource_missing' });
    const badKey = await failure(payments({ secretKey: 'sk_test_not_the_key' }).startCheckout(request()));
    expect(badKey.context).toMatchObject({ transient: false, status: 401 });
    expect(badKey.message).not.toContain('sk_test');
  });
});

describe('the Stripe payments adapter: webhook events', () => {
  const secret = () => emu.env.STRIPE_WEBHOOK_SECRET!;
  const sign = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
    Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? secret(), timestamp: options.timestamp });
  const verified = (payload: string, header?: string) => payments().verifiedEvent(payload, header);
  const refusal = async (payload: string, header?: string) => {
    try {
      await verified(payload, header);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInput);
      return error as InvalidInput;
    }
    throw new Error('accepted');
  };

  /** A paid checkout on the emulator, and its subscription's further events as the emulator renders them. */
  async function purchase(plan: 'pro' | 'starter' = 'pro') {
    const req = request({ plan });
    const session = await payments().startCheckout(req);
    await fetch(session.url, { method: 'POST', redirect: 'manual' });
    const sdk = new Stripe(emu.env.STRIPE_SECRET_KEY!, { host: new URL(emu.url).hostname, port: new URL(emu.url).port, protocol: 'http', telemetry: false });
    const completed = await sdk.checkout.sessions.retrieve(session.id);
    const emit = async (body: Record<string, unknown>) => {
      const res = await fetch(`${emu.url}/_local/stripe/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ subscription: completed.subscription, deliver: false, ...body }),
      });
      return JSON.stringify(((await res.json()) as { event: unknown }).event);
    };
    return { req, completed, emit };
  }

  it('reads checkout.session.completed: customer, subscription, paid, the plan and the links from the metadata', async () => {
    const { req, completed } = await purchase();
    const payload = JSON.stringify({ id: 'evt_completed_1', object: 'event', type: 'checkout.session.completed', created: 1_800_000_000, data: { object: completed } });
    expect(await verified(payload, sign(payload))).toEqual<PaymentEvent>({
      handled: true,
      event: {
        id: 'evt_completed_1',
        type: 'checkout.session.completed',
        created: 1_800_000_000,
        customerId: completed.customer as string,
        subscriptionId: completed.subscription as string,
        status: 'active',
        plan: 'pro',
        reference: { accountId: req.reference.accountId, userId: 'user-1', email: req.reference.email },
      },
    });
  });

  it('reads invoices in the current shape (subscription under parent) and the older one, and subscription changes', async () => {
    const { req, completed, emit } = await purchase('starter');
    const reference = { accountId: req.reference.accountId, userId: 'user-1', email: req.reference.email };

    const paid = await emit({ type: 'invoice.paid' });
    expect(JSON.parse(paid).data.object).not.toHaveProperty('subscription');
    expect(await verified(paid, sign(paid))).toMatchObject({
      handled: true,
      event: { type: 'invoice.paid', subscriptionId: completed.subscription, customerId: completed.customer, status: 'active', plan: 'starter', reference },
    });

    const failed = await emit({ type: 'invoice.payment_failed' });
    expect(await verified(failed, sign(failed))).toMatchObject({ handled: true, event: { type: 'invoice.payment_failed', status: 'past_due', plan: 'starter' } });

    // An older pinned API version: the subscription at the top, no parent.
    const old = JSON.parse(paid);
    old.data.object.subscription = completed.subscription;
    delete old.data.object.parent;
    const oldPayload = JSON.stringify(old);
    expect(await verified(oldPayload, sign(oldPayload))).toMatchObject({ handled: true, event: { subscriptionId: completed.subscription, status: 'active', plan: 'starter' } });

    const upgraded = await emit({ type: 'customer.subscription.updated', plan: 'enterprise', status: 'active' });
    expect(await verified(upgraded, sign(upgraded))).toMatchObject({ handled: true, event: { status: 'active', plan: 'enterprise', subscriptionId: completed.subscription, reference } });

    const deleted = await emit({ type: 'customer.subscription.deleted' });
    expect(await verified(deleted, sign(deleted))).toMatchObject({ handled: true, event: { status: 'canceled', plan: 'free' } });
  });

  it('acknowledges what it does not act on: other event types, payment-mode sessions, one-off invoices', async () => {
    const fixtures = [
      { id: 'evt_a', type: 'charge.succeeded', created: 1, data: { object: {} } },
      { id: 'evt_b', type: 'checkout.session.completed', created: 1, data: { object: { mode: 'payment' } } },
      { id: 'evt_c', type: 'invoice.paid', created: 1, data: { object: { customer: 'cus_1', parent: null } } },
    ];
    for (const fixture of fixtures) {
      const payload = JSON.stringify(fixture);
      expect(await verified(payload, sign(payload))).toEqual({ handled: false, id: fixture.id, type: fixture.type });
    }
  });

  it("answers as stripe-node's constructEvent does for its signer's headers, rolled secrets, forgeries and replays", async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = JSON.stringify({ id: 'evt_same', type: 'charge.succeeded', created: now, data: { object: {} } });
    const v1 = (header: string) => /v1=([0-9a-f]+)/.exec(header)![1]!;
    const valid = sign(payload);
    const other = sign(payload, { secret: 'whsec_someone_else' });
    const headers: Record<string, string | undefined> = {
      'its own signer': valid,
      'a rolled secret: the old and the new signature': `t=${now},v1=${v1(other)},v1=${v1(valid)}`,
      'with a v0 beside': `${valid},v0=${'0'.repeat(64)}`,
      'timestamp 290 s old': sign(payload, { timestamp: now - 290 }),
      'timestamp 301 s old (a replay)': sign(payload, { timestamp: now - 301 }),
      'timestamp ten minutes ahead': sign(payload, { timestamp: now + 600 }),
      'another secret': other,
      'the signature of another body': sign(payload.replace('charge', 'invoice')),
      'the signature moved to another timestamp': `t=${now - 1},v1=${v1(valid)}`,
      'only a v0 signature': `t=${now},v0=${v1(valid)}`,
      'no timestamp': `v1=${v1(valid)}`,
      'a timestamp that is not a number': `t=now,v1=${v1(valid)}`,
      'a truncated signature': `t=${now},v1=${v1(valid).slice(0, 63)}`,
      'empty': '',
      absent: undefined,
    };
    for (const [name, header] of Object.entries(headers)) {
      let sdk = true;
      try {
        Stripe.webhooks.constructEvent(payload, header ?? '', secret(), 300);
      } catch {
        sdk = false;
      }
      const ours = await verified(payload, header).then(
        () => true,
        () => false,
      );
      expect({ name, accepted: ours }).toEqual({ name, accepted: sdk });
    }
  });

  it('refuses a correctly signed body that is not a JSON object as malformed, never a 500', async () => {
    for (const payload of ['not json', 'null', '[1,2]']) {
      const error = await refusal(payload, sign(payload));
      expect(error.code).toBe('malformed_event');
    }
  });

  it('refuses an unsigned, a wrongly signed, a tampered and a stale delivery', async () => {
    const payload = JSON.stringify({ id: 'evt_x', type: 'invoice.paid', created: Math.floor(Date.now() / 1000), data: { object: {} } });
    expect((await refusal(payload, undefined)).code).toBe('invalid_signature');
    expect((await refusal(payload, '')).details).toEqual([{ path: '/headers/stripe-signature', message: 'is missing or malformed' }]);
    expect((await refusal(payload, sign(payload, { secret: 'whsec_someone_else' }))).details?.[0]?.message).toBe('does not match the payload');
    expect((await refusal(payload.replace('invoice.paid', 'invoice.void'), sign(payload))).code).toBe('invalid_signature');
    const stale = sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect((await refusal(payload, stale)).details?.[0]?.message).toBe('is too old');
    // Just inside the tolerance is accepted.
    expect((await verified(payload, sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 290 }))).handled).toBe(false);
  });
});

describe('the Stripe payments adapter: billing portal', () => {
  it("opens a portal session for an existing customer, returning to the dashboard; an unknown customer is the vendor's refusal", async () => {
    const session = await payments().startCheckout(request());
    const html = await (await fetch(session.url)).text();
    const card = /name="card" value="([^"]*)"/.exec(html)![1]!;
    await fetch(session.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ card }), redirect: 'manual' });
    const customer = (await recordedSession(session.id)).customer as string;
    const portal = await payments().openBillingPortal({ customerId: customer, returnUrl: 'https://app.test/dashboard' });
    expect(portal.url).toMatch(new RegExp(`^${emu.url}/stripe/portal/bps_`));
    const refused = await failure(payments().openBillingPortal({ customerId: 'cus_nobody', returnUrl: 'https://app.test/dashboard' }));
    expect(refused.context).toMatchObject({ transient: false, status: 400, vendorCode: 'resource_missing' });
  });
});
