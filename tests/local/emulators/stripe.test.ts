// The Stripe emulator through the real stripe SDK (what our adapter sends) and
// as a browser drives its hosted page, with a small HTTP server standing in
// for the service's webhook endpoint.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulatorHost, type EmulatorHost } from '../../../local/emulators/host.ts';
import { parseForm } from '../../../local/emulators/declared.ts';
import { deliveryOrder, seededRandom, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, stripeVendor } from '../../../local/emulators/stripe.ts';

let host: EmulatorHost;
let receiver: Server;
const received: { signature: string; body: string }[] = [];
let answerStatus = 200;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/webhooks/payments') received.push({ signature: String(req.headers['stripe-signature']), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answerStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ received: answerStatus === 200 }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  host = await startEmulatorHost({ port: 0 });
  host.register(stripeVendor.create({ hostUrl: host.url, apiUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` }));
});
afterAll(async () => {
  await host?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  answerStatus = 200;
});

const sdk = (key = STRIPE_SECRET_KEY) => {
  const url = new URL(host.url);
  return new Stripe(key, { host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
};
const local = async (path: string, init?: RequestInit) => fetch(`${host.url}${path}`, init);
const email = () => `${crypto.randomUUID()}@example.com`;
/** A payment's events in a named order (the pay form's local `delivery` field). */
const FIXED = 'invoice.paid,checkout.session.completed,customer.subscription.updated';

const sessionParams = (overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}): Stripe.Checkout.SessionCreateParams => ({
  mode: 'subscription',
  line_items: [{ price: 'price_local_pro', quantity: 1 }],
  customer_email: email(),
  client_reference_id: 'acct-1',
  metadata: { account_id: 'acct-1', plan: 'pro' },
  subscription_data: { metadata: { account_id: 'acct-1', plan: 'pro' } },
  success_url: 'http://dashboard.test/?checkout=success&session_id={CHECKOUT_SESSION_ID}',
  cancel_url: 'http://dashboard.test/?checkout=canceled',
  ...overrides,
});

/** Pays on the hosted page as a browser does: load it, submit its form. */
async function pay(url: string, form: Record<string, string> = {}) {
  const page = await fetch(url);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no pay form in ${html}`);
  const card = /name="card" value="([^"]*)"/.exec(html)?.[1] ?? '';
  return fetch(new URL(action, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card, ...form }),
    redirect: 'manual',
  });
}

const errorOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error('expected a Stripe error');
};

describe('the Stripe emulator', () => {
  it('parses Stripe form encoding into nested objects and arrays', () => {
    expect(parseForm('mode=subscription&line_items[0][price]=p&line_items[0][quantity]=1&metadata[a]=b&expand[]=x&expand[]=y')).toEqual({
      mode: 'subscription',
      line_items: [{ price: 'p', quantity: '1' }],
      metadata: { a: 'b' },
      expand: ['x', 'y'],
    });
  });

  it('creates a subscription Checkout Session from what stripe-node sends, and retrieves it', async () => {
    const params = sessionParams();
    const session = await sdk().checkout.sessions.create(params);
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      customer: null,
      customer_email: params.customer_email,
      client_reference_id: 'acct-1',
      metadata: { account_id: 'acct-1', plan: 'pro' },
      success_url: params.success_url,
      amount_total: 9900,
    });
    expect(session.id).toMatch(/^cs_test_[A-Za-z0-9]{58}$/);
    expect(session.url).toBe(`${host.url}/stripe/pay/${session.id}`);
    expect(await sdk().checkout.sessions.retrieve(session.id)).toMatchObject({ id: session.id, status: 'open' });
  });

  it("refuses as Stripe does, in Stripe's error shape", async () => {
    const auth = await errorOf(sdk('sk_test_wrong_key_1234').checkout.sessions.create(sessionParams()));
    expect(auth).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(auth.message).not.toContain('wrong_key');

    const unknownParam = await errorOf(sdk().checkout.sessions.create({ ...sessionParams(), bogus: 1 } as never));
    expect(unknownParam).toMatchObject({ type: 'StripeInvalidRequestError', code: 'parameter_unknown', param: 'bogus', statusCode: 400 });

    const unknownPrice = await errorOf(sdk().checkout.sessions.create(sessionParams({ line_items: [{ price: 'price_nope', quantity: 1 }] })));
    expect(unknownPrice).toMatchObject({ code: 'resource_missing', param: 'line_items[0][price]', message: "No such price: 'price_nope'" });

    const both = await errorOf(sdk().checkout.sessions.create(sessionParams({ customer: 'cus_x' })));
    expect(both).toMatchObject({ statusCode: 400, param: 'customer_email' });

    const unknownCustomer = await errorOf(sdk().checkout.sessions.create(sessionParams({ customer_email: undefined, customer: 'cus_nope' })));
    expect(unknownCustomer).toMatchObject({ code: 'resource_missing', param: 'customer' });

    const missing = await errorOf(sdk().checkout.sessions.retrieve('cs_test_missing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });

    const raw = await local('/v1/checkout/sessions', { method: 'POST', headers: { authorization: `Bearer ${STRIPE_SECRET_KEY}` }, body: 'mode=payment' });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param: 'mode', message: expect.any(String) });
  });

  it('keeps idempotency as Stripe does: same key and request, same session; another request, idempotency_error; refusals not remembered', async () => {
    const params = sessionParams();
    const key = `k-${crypto.randomUUID()}`;
    const first = await sdk().checkout.sessions.create(params, { idempotencyKey: key });
    const again = await sdk().checkout.sessions.create(params, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');

    const other = await errorOf(sdk().checkout.sessions.create(sessionParams(), { idempotencyKey: key }));
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(other).toMatchObject({ statusCode: 400, rawType: 'idempotency_error' });

    const refusedKey = `k-${crypto.randomUUID()}`;
    await errorOf(sdk().checkout.sessions.create(sessionParams({ line_items: [{ price: 'price_nope', quantity: 1 }] }), { idempotencyKey: refusedKey }));
    const afterRefusal = await sdk().checkout.sessions.create(params, { idempotencyKey: refusedKey });
    expect(afterRefusal.id).not.toBe(first.id);
  });

  it('answers every retry of a key whose request failed in execution with that 500, as Stripe saves it; a 500 before execution is not kept', async () => {
    // Faults match the path and body: each request names its case in its success URL.
    const fault = (mode: string, marker: string) =>
      local('/_local/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor: 'stripe', mode, match: marker }) });
    const create = (key: string, marker: string) =>
      local('/v1/checkout/sessions', {
        method: 'POST',
        headers: { authorization: `Bearer ${STRIPE_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
        body: new URLSearchParams({
          mode: 'subscription',
          'line_items[0][price]': 'price_local_pro',
          'line_items[0][quantity]': '1',
          success_url: `http://dashboard.test/${marker}`,
          cancel_url: 'http://dashboard.test/no',
        }),
      });

    const inExecution = crypto.randomUUID();
    const key = `k-${inExecution}`;
    await fault('fail-in-execution', inExecution);
    const failed = await create(key, inExecution);
    expect(failed.status).toBe(500);
    const replay = await create(key, inExecution);
    expect(replay.status).toBe(500);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await failed.json());
    expect((await create(`${key}-other`, inExecution)).status).toBe(200);

    const beforeExecution = crypto.randomUUID();
    await fault('fail', beforeExecution);
    expect((await create(`k-${beforeExecution}`, beforeExecution)).status).toBe(500);
    expect((await create(`k-${beforeExecution}`, beforeExecution)).status).toBe(200);
  });

  it('serves a hosted page with the plan and a pay button; paying completes the session, posts signed events and redirects', async () => {
    const session = await sdk().checkout.sessions.create(sessionParams());
    const html = await (await fetch(session.url!)).text();
    expect(html).toContain('Pro plan');
    expect(html).toContain('$99.00');
    expect(html).toMatch(/<button type="submit" id="pay">Pay \$99\.00<\/button>/);

    const paid = await pay(session.url!, { delivery: FIXED });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://dashboard.test/?checkout=success&session_id=${session.id}`);

    // Signed with the webhook secret over the exact bytes sent; the SDK's own verification accepts them.
    expect(received.map((r) => JSON.parse(r.body).type)).toEqual(FIXED.split(','));
    const [invoicePaid, completed, activated] = received.map((r) => Stripe.webhooks.constructEvent(r.body, r.signature, STRIPE_WEBHOOK_SECRET));
    expect(() => Stripe.webhooks.constructEvent(received[0]!.body, received[0]!.signature, 'whsec_other')).toThrow(Stripe.errors.StripeSignatureVerificationError);

    const done = await sdk().checkout.sessions.retrieve(session.id);
    expect(done).toMatchObject({ status: 'complete', payment_status: 'paid', customer: expect.stringMatching(/^cus_/), subscription: expect.stringMatching(/^sub_/) });
    expect((completed!.data.object as Stripe.Checkout.Session)).toMatchObject({ id: session.id, status: 'complete', subscription: done.subscription, customer: done.customer });

    const invoice = invoicePaid!.data.object as Stripe.Invoice & { subscription?: unknown };
    expect(invoice.parent?.subscription_details?.subscription).toBe(done.subscription);
    expect(invoice.parent?.subscription_details?.metadata).toEqual({ account_id: 'acct-1', plan: 'pro' });
    expect(invoice).not.toHaveProperty('subscription');
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: 9900, customer: done.customer, billing_reason: 'subscription_create' });
    expect(invoice.lines.data[0]?.pricing?.price_details?.price).toBe('price_local_pro');

    expect(activated!.data).toMatchObject({ object: { id: done.subscription, status: 'active' }, previous_attributes: { status: 'incomplete' } });

    const subscription = await sdk().subscriptions.retrieve(done.subscription as string);
    expect(subscription).toMatchObject({ status: 'active', metadata: { account_id: 'acct-1', plan: 'pro' }, customer: done.customer });

    const recorded = (await (await local('/_local/payments')).json()) as any[];
    const mine = recorded.find((s) => s.id === session.id);
    expect(mine.status).toBe('complete');
    expect(mine.deliveries.map((d: any) => [d.event.type, d.status, d.answer])).toEqual(FIXED.split(',').map((type) => [type, 200, { received: true }]));

    // Paid once: the page no longer takes payment.
    expect(await (await fetch(session.url!)).text()).not.toContain('id="pay"');
    expect((await fetch(session.url!, { method: 'POST', redirect: 'manual' })).status).toBe(400);
    expect(received).toHaveLength(3);
  });

  it("delivers a purchase's events in a seeded random order, now and then one twice, as Stripe promises no order and may repeat", async () => {
    const orders: string[][] = [];
    for (let i = 0; i < 12; i++) {
      const session = await sdk().checkout.sessions.create(sessionParams());
      received.length = 0;
      await pay(session.url!);
      orders.push(received.map((r) => JSON.parse(r.body).type));
      const ids = received.map((r) => JSON.parse(r.body).id);
      // A repeat is the same event (same id), not a new one.
      expect(new Set(ids).size).toBe(3);
      expect(new Set(orders.at(-1))).toEqual(new Set(['checkout.session.completed', 'invoice.paid', 'customer.subscription.updated']));
    }
    expect(new Set(orders.map((o) => o.slice(0, 3).join())).size).toBeGreaterThan(1);
    expect(orders.some((o) => o.length === 4)).toBe(true);
  });

  it('draws the same orders from the same seed', () => {
    const events = ['a', 'b', 'c'];
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 20 }, () => deliveryOrder(events, random, 0.3).join(''));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    expect(new Set(draw(7).map((o) => o.length))).toEqual(new Set([3, 4]));
  });

  it('asks for the e-mail on the page when the session has none, and reuses a known customer', async () => {
    const first = await sdk().checkout.sessions.create(sessionParams({ customer_email: undefined }));
    expect(await (await fetch(first.url!)).text()).toContain('name="email"');
    const address = email();
    expect((await pay(first.url!, { email: address })).status).toBe(303);
    const customer = (await sdk().checkout.sessions.retrieve(first.id)).customer as string;
    expect(await sdk().customers.retrieve(customer)).toMatchObject({ email: address });

    const returning = await sdk().checkout.sessions.create(sessionParams({ customer_email: undefined, customer }));
    expect(await (await fetch(returning.url!)).text()).not.toContain('name="email"');
    expect((await pay(returning.url!)).status).toBe(303);
    expect((await sdk().checkout.sessions.retrieve(returning.id)).customer).toBe(customer);
  });

  it('records a delivery the API refused, with its answer', async () => {
    const session = await sdk().checkout.sessions.create(sessionParams());
    answerStatus = 500;
    expect((await pay(session.url!, { delivery: 'invoice.paid,checkout.session.completed' })).status).toBe(303);
    const events = (await (await local('/_local/payment-events')).json()) as any[];
    expect(events.slice(0, 2).map((e) => [e.event.type, e.status])).toEqual([
      ['checkout.session.completed', 500],
      ['invoice.paid', 500],
    ]);
  });

  it('emits further signed events for a subscription on request', async () => {
    const session = await sdk().checkout.sessions.create(sessionParams());
    await pay(session.url!);
    const { subscription, customer } = await sdk().checkout.sessions.retrieve(session.id);
    received.length = 0;

    const emit = async (body: Record<string, unknown>) => {
      const res = await local('/_local/stripe/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };

    const failed = await emit({ type: 'invoice.payment_failed', customer });
    expect(failed.status).toBe(201);
    expect(failed.body.event.data.object).toMatchObject({ status: 'open', billing_reason: 'subscription_cycle', parent: { subscription_details: { subscription } } });
    expect(failed.body.delivery).toMatchObject({ status: 200 });

    const updated = await emit({ type: 'customer.subscription.updated', subscription, status: 'active', plan: 'enterprise', createdSecondsAgo: 30 });
    expect(updated.body.event.data.object).toMatchObject({ id: subscription, status: 'active', items: { data: [{ price: { id: 'price_local_enterprise' } }] } });
    expect(updated.body.event.data.previous_attributes.status).toBe('past_due');
    expect(updated.body.event.created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 30);

    const notSent = await emit({ type: 'customer.subscription.deleted', subscription, deliver: false });
    expect(notSent.body.delivery).toBeNull();
    expect(notSent.body.event.data.object).toMatchObject({ status: 'canceled' });

    expect(received.map((r) => Stripe.webhooks.constructEvent(r.body, r.signature, STRIPE_WEBHOOK_SECRET).type)).toEqual([
      'invoice.payment_failed',
      'customer.subscription.updated',
    ]);
    expect((await emit({ type: 'charge.refunded', subscription })).status).toBe(400);
    expect((await emit({ type: 'invoice.paid', subscription: 'sub_nope' })).status).toBe(404);
  });

  it('fails with 500 api_error and throttles with 429 rate_limit_error when told to', async () => {
    const fault = (mode: string) =>
      local('/_local/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor: 'stripe', mode, count: 1 }) });
    await fault('fail');
    const failed = await errorOf(sdk().checkout.sessions.create(sessionParams()));
    expect(failed).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(failed).toMatchObject({ statusCode: 500, rawType: 'api_error' });

    await fault('throttle');
    const throttled = await errorOf(sdk().checkout.sessions.create(sessionParams()));
    expect(throttled).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(throttled).toMatchObject({ statusCode: 429, rawType: 'rate_limit_error' });

    expect((await sdk().checkout.sessions.create(sessionParams())).status).toBe('open');
  });
});

describe('the customer portal', () => {
  async function paidCustomer() {
    const session = await sdk().checkout.sessions.create(sessionParams());
    await pay(session.url!);
    const paid = await sdk().checkout.sessions.retrieve(session.id);
    received.length = 0;
    return { customer: paid.customer as string, subscription: paid.subscription as string };
  }
  const portalForm = async (url: string, form: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form), redirect: 'manual' });
  const typesReceived = () => received.map((r) => (JSON.parse(r.body) as { type: string }).type);

  it('opens a session for a customer, refusing unknown customers and parameters as Stripe does', async () => {
    const { customer } = await paidCustomer();
    const portal = await sdk().billingPortal.sessions.create({ customer, return_url: 'http://dashboard.test/dashboard' });
    expect(portal).toMatchObject({ object: 'billing_portal.session', customer, return_url: 'http://dashboard.test/dashboard', url: expect.stringContaining('/stripe/portal/bps_') });
    expect((await errorOf(sdk().billingPortal.sessions.create({ customer: 'cus_nobody' }))).code).toBe('resource_missing');
    const unknown = await errorOf(sdk().billingPortal.sessions.create({ customer, colour: 'blue' } as never));
    expect(unknown.code).toBe('parameter_unknown');
  });

  it('switches the plan (customer.subscription.updated with the new price) and cancels (customer.subscription.deleted), each signed', async () => {
    const { customer, subscription } = await paidCustomer();
    const portal = await sdk().billingPortal.sessions.create({ customer, return_url: 'http://dashboard.test/dashboard' });
    const html = await (await fetch(portal.url)).text();
    expect(html).toContain(`data-subscription="${subscription}" data-plan="pro"`);

    expect((await portalForm(portal.url, { action: 'change', subscription, price: 'price_local_enterprise' })).status).toBe(303);
    expect((await sdk().subscriptions.retrieve(subscription)).items.data[0]!.price.id).toBe('price_local_enterprise');
    expect((await portalForm(portal.url, { action: 'cancel', subscription })).status).toBe(303);
    expect((await sdk().subscriptions.retrieve(subscription)).status).toBe('canceled');

    expect(typesReceived()).toEqual(['customer.subscription.updated', 'customer.subscription.deleted']);
    for (const r of received) expect(() => Stripe.webhooks.constructEvent(r.body, r.signature, STRIPE_WEBHOOK_SECRET)).not.toThrow();
    const updated = JSON.parse(received[0]!.body);
    expect(updated.data.object.items.data[0].price.id).toBe('price_local_enterprise');
    expect(updated.data.previous_attributes.items.data[0].price.id).toBe('price_local_pro');
    // A canceled subscription is no longer offered.
    expect(await (await fetch(portal.url)).text()).toContain('No active subscription');
  });
});
