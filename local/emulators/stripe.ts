// Stripe as stripe-node calls it (vendor-contracts §6), for subscription
// Checkout:
//   POST /v1/checkout/sessions      form-encoded (line_items[0][price]=...), Bearer sk_test_...
//   GET  /v1/checkout/sessions/:id, /v1/subscriptions/:id, /v1/customers/:id
// Errors are {error: {type, code, message, param, doc_url}}; unknown parameters,
// prices and customers are refused as Stripe refuses them. Idempotency-Key:
// the same key with the same request answers the first response again
// (Idempotent-Replayed: true); with another request, 400 idempotency_error;
// requests refused by validation are not remembered. A request that failed
// once its execution had begun is: its 500 is the answer to every retry with
// that key (docs.stripe.com/idempotency: the first result is saved "regardless
// of whether it succeeds or fails", "including 500 errors"; vendor-contracts
// §6). The fault mode `fail-in-execution` makes one; the generic `fail` is a
// 500 before execution begins, which nothing remembers.
//
// Each session's `url` is a stand-in hosted page on this host showing the plan
// and a pay button. Paying completes the session (customer, subscription,
// invoice), posts signed checkout.session.completed, invoice.paid and
// customer.subscription.updated (incomplete → active) events to the service's
// /webhooks/payments with the webhook secret, and redirects to the success URL.
// Stripe guarantees no order of delivery and may deliver an event more than
// once (docs.stripe.com/webhooks, "Event ordering", "Handle duplicate
// events"): so the events go out in a random order from a seeded generator,
// and now and then one of them twice. `delivery: 'fixed'` (an option) sends
// them in the order above, once; a test can also name the order of one
// payment in the pay form's `delivery` field, e.g.
// "invoice.paid,checkout.session.completed,invoice.paid".
// Invoices have the current shape: the subscription is under
// parent.subscription_details, with no top-level `subscription`.
//
// The customer portal (POST /v1/billing_portal/sessions {customer, return_url})
// gives a session whose `url` is a stand-in portal page on this host: it lists
// the customer's live subscriptions and lets the person switch plan or cancel.
// A switch delivers customer.subscription.updated (the new price on the item);
// a cancellation delivers customer.subscription.deleted at once, as a portal
// configured with subscription_cancel.mode "immediately" does. Knowingly
// different from Stripe: no proration invoices, and no 5-minute session expiry.
//
// Local only:
//   GET  /_local/payments         sessions, newest first, each with the events delivered for it and the API's answers
//   GET  /_local/payment-events   every event delivered, newest first
//   POST /_local/stripe/events    { type, subscription | customer, status?, plan?, createdSecondsAgo?, deliver? }
//        emits a further signed event for a subscription: invoice.paid, invoice.payment_failed,
//        customer.subscription.updated, customer.subscription.deleted
import { Hono, type Context } from 'hono';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { declaredOnly, parseForm, type Fields } from './declared.ts';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const STRIPE_SECRET_KEY = 'sk_test_local_emulator_key';
export const STRIPE_WEBHOOK_SECRET = 'whsec_local_emulator_signing_secret';
/** The version stripe-node 23.1.0 pins; events are rendered in it. */
export const STRIPE_API_VERSION = '2026-10-28.endive';

/** The recurring prices this Stripe account has, one per paid plan. */
export const STRIPE_PRICES = {
  price_local_starter: { plan: 'starter', product: 'prod_local_starter', name: 'Starter', unit_amount: 2900 },
  price_local_pro: { plan: 'pro', product: 'prod_local_pro', name: 'Pro', unit_amount: 9900 },
  price_local_enterprise: { plan: 'enterprise', product: 'prod_local_enterprise', name: 'Enterprise', unit_amount: 49900 },
} as const;
type PriceId = keyof typeof STRIPE_PRICES;
const CURRENCY = 'usd';
const DAY = 86_400;
const MONTH = 30 * DAY;

type Json = Record<string, any>;

interface Delivery {
  event: { id: string; type: string; created: number };
  session?: string;
  subscription?: string;
  endpoint: string;
  delivered_at: string;
  /** The API's answer; absent when it could not be reached. */
  status?: number;
  answer?: unknown;
  error?: string;
}

interface State {
  customers: Json[];
  sessions: Json[];
  portalSessions: Json[];
  subscriptions: Json[];
  invoices: Json[];
  deliveries: Delivery[];
  idempotency: Record<string, { hash: string; status: number; body: unknown; at: number }>;
}

const emptyState = (): State => ({ customers: [], sessions: [], portalSessions: [], subscriptions: [], invoices: [], deliveries: [], idempotency: {} });

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const token = (length: number) => Array.from(randomBytes(length), (b) => ALNUM[b % ALNUM.length]).join('');
const newId = (prefix: string, length = 24) => `${prefix}_${token(length)}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

// ---- Wire format ----

/** A canonical form of the parameters, for "same request" under one idempotency key. */
const requestHash = (method: string, path: string, params: Json) =>
  createHash('sha256').update(JSON.stringify([method, path, canonical(params)])).digest('hex');
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Json)[k])]))
      : value;

interface StripeErrorBody {
  type: 'invalid_request_error' | 'api_error' | 'idempotency_error' | 'rate_limit_error' | 'authentication_error';
  message: string;
  code?: string;
  param?: string;
}

const errorJson = (e: StripeErrorBody) => ({
  error: { ...e, ...(e.code ? { doc_url: `https://stripe.com/docs/error-codes/${e.code.replace(/_/g, '-')}` } : {}) },
});

const UNKNOWN_ERROR: StripeErrorBody = { type: 'api_error', message: 'An unknown error occurred' };

function stripeError(c: Context, status: number, e: StripeErrorBody): Response {
  return c.json(errorJson(e), status as never, { 'request-id': newId('req', 14) });
}

/** A refusal by validation: answered, but never remembered under an idempotency key. */
class Refusal extends Error {
  readonly status: number;
  readonly body: StripeErrorBody;
  constructor(status: number, body: StripeErrorBody) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}
const invalid = (message: string, param?: string, code?: string) => new Refusal(400, { type: 'invalid_request_error', message, param, code });
const missing = (kind: string, id: string, param: string) => invalid(`No such ${kind}: '${id}'`, param, 'resource_missing');

// ---- Checkout Session parameters ----

// Every parameter the real endpoint takes at this API version; those this emulator acts on are validated
// below, the rest accepted as sent. (stripe.json is of 2023-08-16 and lacks the newer ones, e.g. ui_mode.)
const any = (...names: string[]): Fields => Object.fromEntries(names.map((name) => [name, 'any']));
const SESSION_FIELDS: Fields = {
  ...any(
    'adaptive_pricing', 'after_expiration', 'allow_promotion_codes', 'automatic_tax', 'billing_address_collection', 'branding_settings',
    'cancel_url', 'client_reference_id', 'consent_collection', 'currency', 'custom_fields', 'custom_text', 'customer', 'customer_account',
    'customer_creation', 'customer_email', 'customer_update', 'discounts', 'excluded_payment_method_types', 'expand', 'expires_at',
    'integration_identifier', 'invoice_creation', 'locale', 'managed_payments', 'metadata', 'mode', 'name_collection', 'optional_items',
    'origin_context', 'payment_intent_data', 'payment_method_collection', 'payment_method_configuration', 'payment_method_data',
    'payment_method_options', 'payment_method_types', 'permissions', 'phone_number_collection', 'redirect_on_completion', 'return_url',
    'saved_payment_method_options', 'setup_intent_data', 'shipping_address_collection', 'shipping_options', 'submit_type', 'success_url',
    'tax_id_collection', 'ui_mode', 'wallet_options',
  ),
  line_items: [any('adjustable_quantity', 'dynamic_tax_rates', 'metadata', 'price', 'price_data', 'quantity', 'tax_rates')],
  subscription_data: any(
    'application_fee_percent', 'billing_cycle_anchor', 'billing_mode', 'default_tax_rates', 'description', 'invoice_settings', 'metadata',
    'on_behalf_of', 'pending_invoice_items_behavior', 'proration_behavior', 'transfer_data', 'trial_end', 'trial_period_days', 'trial_settings',
  ),
};

/** Stripe names a nested parameter as a form key: line_items[0][price]. */
const formName = (path: readonly (string | number)[]) => path.map((part, i) => (i === 0 ? String(part) : `[${part}]`)).join('');

export const STRIPE_DIFFERENCES = [
  'Subscription Checkout only (mode=subscription, the hosted page); the page is a stand-in with a pay button, and no card is charged.',
  'A purchase delivers invoice.paid, checkout.session.completed and customer.subscription.updated in a seeded random order, now and then one of them twice (Stripe guarantees no order and may deliver an event more than once), all at once rather than over seconds; fixed order on request.',
  'Answers the API routes our adapter and tests use (checkout sessions, and reading subscriptions and customers); any other is 404 Unrecognized request URL.',
];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// What POST /v1/billing_portal/sessions takes (Stripe's API reference, billing_portal/sessions/create).
const PORTAL_SESSION_PARAMS = new Set(['configuration', 'customer', 'customer_account', 'expand', 'flow_data', 'locale', 'on_behalf_of', 'return_url']);

function checkMetadata(value: unknown, param: string): Record<string, string> {
  if (value === undefined || value === '') return {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('Invalid object', param);
  const entries = Object.entries(value as Json);
  if (entries.length > 50) throw invalid('Metadata can have at most 50 keys', param);
  for (const [k, v] of entries) {
    if (k.length > 40) throw invalid(`Metadata keys must be at most 40 characters: '${k}'`, `${param}[${k}]`);
    if (typeof v !== 'string' || v.length > 500) throw invalid('Metadata values must be strings of at most 500 characters', `${param}[${k}]`);
  }
  return value as Record<string, string>;
}

function checkUrl(value: unknown, param: string): string | null {
  if (value === undefined) return null;
  try {
    const url = new URL(String(value));
    if (url.protocol === 'http:' || url.protocol === 'https:') return String(value);
  } catch {
    // fall through
  }
  throw invalid('Not a valid URL', param, 'url_invalid');
}

// ---- The emulator ----

export interface StripeEmulatorOptions {
  /** This host's origin: hosted pages live here. */
  hostUrl: string;
  /** The service's origin: events go to {apiUrl}/webhooks/payments. */
  apiUrl: string;
  webhookSecret?: string;
  /** How a purchase's events are delivered: shuffled by a generator seeded with `seed` (the default), or in a fixed order. */
  delivery?: { order: 'random'; seed?: number; duplicateRate?: number } | { order: 'fixed' };
}

/** A small seeded generator (mulberry32): the same seed, the same orders. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The order a purchase's events go out in: shuffled (Fisher–Yates), one of them now and then twice. */
export function deliveryOrder<T>(events: readonly T[], random: () => number, duplicateRate: number): T[] {
  const order = [...events];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  if (random() < duplicateRate) {
    const copy = order[Math.floor(random() * order.length)]!;
    order.splice(1 + Math.floor(random() * order.length), 0, copy);
  }
  return order;
}

const DEFAULT_SEED = 20_260_101;
const DEFAULT_DUPLICATE_RATE = 0.3;

export function stripeEmulator(options: StripeEmulatorOptions): VendorEmulator {
  let state = emptyState();
  const secret = options.webhookSecret ?? STRIPE_WEBHOOK_SECRET;
  const delivery = options.delivery ?? { order: 'random' };
  const purchaseOrder: (events: Json[]) => Json[] =
    delivery.order === 'random'
      ? ((random) => (events) => deliveryOrder(events, random, delivery.duplicateRate ?? DEFAULT_DUPLICATE_RATE))(seededRandom(delivery.seed ?? DEFAULT_SEED))
      : (events) => events;
  const endpoint = `${options.apiUrl}/webhooks/payments`;
  const app = new Hono();
  const api = new Hono();
  /** Requests the fault `fail-in-execution` marked: they fail after their idempotency key is taken. */
  const failingInExecution = new WeakSet<Request>();

  const customerById = (id: string) => state.customers.find((x) => x.id === id);
  const sessionById = (id: string) => state.sessions.find((x) => x.id === id);
  const subscriptionById = (id: string) => state.subscriptions.find((x) => x.id === id);
  const priceJson = (id: PriceId) => ({
    id,
    object: 'price',
    active: true,
    currency: CURRENCY,
    product: STRIPE_PRICES[id].product,
    recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
    type: 'recurring',
    unit_amount: STRIPE_PRICES[id].unit_amount,
  });

  // ---- API ----

  api.use('*', async (c, next) => {
    const auth = c.req.header('authorization');
    if (!auth) {
      return stripeError(c, 401, {
        type: 'invalid_request_error',
        message: 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.',
      });
    }
    if (auth !== `Bearer ${STRIPE_SECRET_KEY}`) {
      const shown = auth.replace(/^Bearer\s+/i, '');
      return stripeError(c, 401, {
        type: 'invalid_request_error',
        code: 'api_key_invalid',
        message: `Invalid API Key provided: ${shown.slice(0, 8)}${'*'.repeat(Math.max(0, shown.length - 12))}${shown.slice(-4)}`,
      });
    }
    await next();
  });
  api.use(
    '*',
    declaredOnly({
      base: '/v1',
      operations: [
        { method: 'POST', path: '/checkout/sessions', argsIn: 'form', body: SESSION_FIELDS },
        { method: 'GET', path: '/checkout/sessions/:id', query: ['expand'] },
        { method: 'GET', path: '/subscriptions/:id', query: ['expand'] },
        { method: 'GET', path: '/customers/:id', query: ['expand'] },
        // PostBillingPortalSessions in ../shared/vendor-apis/stripe.json (spec3, 2023-08-16).
        { method: 'POST', path: '/billing_portal/sessions', argsIn: 'form', body: any('configuration', 'customer', 'expand', 'flow_data', 'locale', 'on_behalf_of', 'return_url') },
      ],
      refuse: (c, undeclared) => {
        if (undeclared.kind === 'operation') {
          return stripeError(c, 404, {
            type: 'invalid_request_error',
            message: `Unrecognized request URL (${undeclared.method}: ${undeclared.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
          });
        }
        const param = undeclared.kind === 'query' ? undeclared.name : formName(undeclared.path);
        return stripeError(c, 400, { type: 'invalid_request_error', code: 'parameter_unknown', param, message: `Received unknown parameter: ${param}` });
      },
    }),
  );

  /** Runs a POST under Stripe's idempotency rules. */
  async function idempotent(c: Context, run: (params: Json) => Json): Promise<Response> {
    const params = parseForm(await c.req.text());
    const key = c.req.header('idempotency-key');
    const hash = requestHash(c.req.method, c.req.path, params);
    pruneIdempotency();
    if (key) {
      if (key.length > 255) return stripeError(c, 400, { type: 'invalid_request_error', message: 'Idempotency keys are at most 255 characters' });
      const seen = state.idempotency[key];
      if (seen && seen.hash !== hash) {
        return stripeError(c, 400, {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        });
      }
      if (seen) return c.json(seen.body as Json, seen.status as never, { 'idempotent-replayed': 'true', 'idempotency-key': key });
    }
    if (failingInExecution.has(c.req.raw)) {
      const body = errorJson(UNKNOWN_ERROR);
      if (key) state.idempotency[key] = { hash, status: 500, body, at: nowSeconds() };
      return c.json(body, 500, key ? { 'idempotency-key': key } : {});
    }
    try {
      const body = run(params);
      if (key) state.idempotency[key] = { hash, status: 200, body, at: nowSeconds() };
      return c.json(body, 200, key ? { 'idempotency-key': key } : {});
    } catch (error) {
      if (error instanceof Refusal) return stripeError(c, error.status, error.body);
      throw error;
    }
  }

  const pruneIdempotency = () => {
    const cutoff = nowSeconds() - DAY;
    for (const [k, v] of Object.entries(state.idempotency)) if (v.at < cutoff) delete state.idempotency[k];
  };

  api.post('/checkout/sessions', (c) => idempotent(c, (p) => createSession(p)));
  api.post('/billing_portal/sessions', (c) => idempotent(c, (p) => createPortalSession(p)));

  api.get('/checkout/sessions/:id', (c) => {
    const session = sessionById(c.req.param('id'));
    return session ? c.json(session) : stripeError(c, 404, { type: 'invalid_request_error', code: 'resource_missing', param: 'session', message: `No such checkout.session: '${c.req.param('id')}'` });
  });
  api.get('/subscriptions/:id', (c) => {
    const sub = subscriptionById(c.req.param('id'));
    return sub ? c.json(sub) : stripeError(c, 404, { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such subscription: '${c.req.param('id')}'` });
  });
  api.get('/customers/:id', (c) => {
    const customer = customerById(c.req.param('id'));
    return customer ? c.json(customer) : stripeError(c, 404, { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such customer: '${c.req.param('id')}'` });
  });

  function createSession(p: Json): Json {
    if (!p.mode) throw invalid('Missing required param: mode.', 'mode', 'parameter_missing');
    if (p.mode !== 'subscription') throw invalid(`This emulator supports mode=subscription only, not '${p.mode}'.`, 'mode', 'parameter_invalid_string');
    if (p.ui_mode !== undefined && p.ui_mode !== 'hosted_page') throw invalid('This emulator serves the hosted page only.', 'ui_mode');
    if (p.customer && p.customer_email) {
      throw invalid('You may only specify one of these parameters: customer, customer_email.', 'customer_email');
    }
    if (p.customer && !customerById(p.customer)) throw missing('customer', p.customer, 'customer');
    if (p.customer_email !== undefined && !EMAIL.test(p.customer_email)) throw invalid('Invalid email address: ' + p.customer_email, 'customer_email', 'email_invalid');
    if (p.client_reference_id !== undefined && String(p.client_reference_id).length > 200) {
      throw invalid('client_reference_id must be at most 200 characters', 'client_reference_id');
    }
    const items = p.line_items;
    if (!Array.isArray(items) || items.length === 0) {
      throw invalid('`line_items` is required in `subscription` mode.', 'line_items', 'parameter_missing');
    }
    const lineItems = items.map((item: Json, i: number) => {
      if (!item?.price) throw invalid(`Missing required param: line_items[${i}][price].`, `line_items[${i}][price]`, 'parameter_missing');
      if (!(item.price in STRIPE_PRICES)) throw missing('price', item.price, `line_items[${i}][price]`);
      const quantity = Number(item.quantity);
      if (!Number.isInteger(quantity) || quantity < 1) throw invalid('Quantity must be a positive integer', `line_items[${i}][quantity]`);
      return { price: item.price as PriceId, quantity };
    });
    const metadata = checkMetadata(p.metadata, 'metadata');
    const subscriptionData = p.subscription_data ?? {};
    const subscriptionMetadata = checkMetadata(subscriptionData.metadata, 'subscription_data[metadata]');
    const successUrl = checkUrl(p.success_url, 'success_url');
    const cancelUrl = checkUrl(p.cancel_url, 'cancel_url');

    const created = nowSeconds();
    const id = newId('cs_test', 58);
    const total = lineItems.reduce((sum, item) => sum + STRIPE_PRICES[item.price].unit_amount * item.quantity, 0);
    const session: Json = {
      id,
      object: 'checkout.session',
      allow_promotion_codes: p.allow_promotion_codes === 'true' ? true : null,
      amount_subtotal: total,
      amount_total: total,
      cancel_url: cancelUrl,
      client_reference_id: p.client_reference_id ?? null,
      created,
      currency: CURRENCY,
      customer: p.customer ?? null,
      customer_details: null,
      customer_email: p.customer_email ?? null,
      expires_at: created + DAY,
      invoice: null,
      livemode: false,
      metadata,
      mode: 'subscription',
      payment_status: 'unpaid',
      status: 'open',
      subscription: null,
      success_url: successUrl,
      ui_mode: 'hosted_page',
      url: `${options.hostUrl}/stripe/pay/${id}`,
      // Kept by Stripe, shown only through other endpoints; kept here under a private key.
      _line_items: lineItems,
      _subscription_metadata: subscriptionMetadata,
    };
    state.sessions.push(session);
    return publicSession(session);
  }

  function createPortalSession(p: Json): Json {
    for (const name of Object.keys(p)) if (!PORTAL_SESSION_PARAMS.has(name)) throw invalid(`Received unknown parameter: ${name}`, name, 'parameter_unknown');
    if (!p.customer) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing');
    if (!customerById(p.customer)) throw missing('customer', p.customer, 'customer');
    const id = newId('bps', 24);
    const session: Json = {
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_local_default',
      created: nowSeconds(),
      customer: p.customer,
      flow: null,
      livemode: false,
      locale: p.locale ?? null,
      on_behalf_of: null,
      return_url: checkUrl(p.return_url, 'return_url'),
      url: `${options.hostUrl}/stripe/portal/${id}`,
    };
    state.portalSessions.push(session);
    return session;
  }

  const publicSession = (s: Json) => {
    const { _line_items: _items, _subscription_metadata: _meta, ...rest } = s;
    return { ...rest, status: s.status === 'open' && s.expires_at <= nowSeconds() ? 'expired' : s.status };
  };

  // ---- Paying on the hosted page ----

  function complete(session: Json, email: string): Json[] {
    const created = nowSeconds();
    let customer = session.customer ? customerById(session.customer) : undefined;
    if (!customer) {
      customer = { id: newId('cus', 14), object: 'customer', email, created, livemode: false, metadata: {} };
      state.customers.push(customer);
    }
    const items = (session._line_items as { price: PriceId; quantity: number }[]).map((item) => ({
      id: newId('si', 14),
      object: 'subscription_item',
      price: priceJson(item.price),
      quantity: item.quantity,
      current_period_start: created,
      current_period_end: created + MONTH,
    }));
    const subscription: Json = {
      id: newId('sub', 24),
      object: 'subscription',
      cancel_at_period_end: false,
      canceled_at: null,
      created,
      currency: CURRENCY,
      customer: customer.id,
      ended_at: null,
      items: { object: 'list', data: items, has_more: false },
      latest_invoice: null,
      livemode: false,
      metadata: session._subscription_metadata ?? {},
      start_date: created,
      status: 'active',
    };
    state.subscriptions.push(subscription);
    const invoice = newInvoice(subscription, 'subscription_create', 'paid', created);
    Object.assign(session, {
      status: 'complete',
      payment_status: 'paid',
      customer: customer.id,
      customer_details: { email: customer.email, name: null, address: null, phone: null, tax_exempt: 'none', tax_ids: [] },
      subscription: subscription.id,
      invoice: invoice.id,
    });
    const activated = { ...subscription, status: 'active' };
    return [
      event('checkout.session.completed', publicSession(session), created),
      event('invoice.paid', invoice, created),
      event('customer.subscription.updated', activated, created, { status: 'incomplete' }),
    ];
  }

  function newInvoice(subscription: Json, billingReason: string, status: 'paid' | 'open', created: number): Json {
    const customer = customerById(subscription.customer);
    const lines = (subscription.items.data as Json[]).map((item) => ({
      id: newId('il', 24),
      object: 'line_item',
      amount: item.price.unit_amount * item.quantity,
      currency: CURRENCY,
      description: `${item.quantity} × ${STRIPE_PRICES[item.price.id as PriceId]?.name ?? item.price.id} (at $${(item.price.unit_amount / 100).toFixed(2)} / month)`,
      period: { start: created, end: created + MONTH },
      pricing: { type: 'price_details', price_details: { price: item.price.id, product: item.price.product }, unit_amount_decimal: String(item.price.unit_amount) },
      parent: {
        type: 'subscription_item_details',
        subscription_item_details: { subscription: subscription.id, subscription_item: item.id, proration: false },
      },
      quantity: item.quantity,
    }));
    const amount = lines.reduce((sum, line) => sum + line.amount, 0);
    const invoice: Json = {
      id: newId('in', 24),
      object: 'invoice',
      amount_due: amount,
      amount_paid: status === 'paid' ? amount : 0,
      amount_remaining: status === 'paid' ? 0 : amount,
      attempt_count: 1,
      attempted: true,
      billing_reason: billingReason,
      collection_method: 'charge_automatically',
      created,
      currency: CURRENCY,
      customer: subscription.customer,
      customer_email: customer?.email ?? null,
      hosted_invoice_url: `${options.hostUrl}/stripe/invoices/${subscription.id}`,
      lines: { object: 'list', data: lines, has_more: false },
      livemode: false,
      metadata: {},
      // API 2025-03-31.basil: the subscription moved here; there is no top-level `subscription` any more.
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata: { ...subscription.metadata }, subscription: subscription.id },
      },
      period_end: created,
      period_start: created,
      status,
      subtotal: amount,
      total: amount,
    };
    state.invoices.push(invoice);
    subscription.latest_invoice = invoice.id;
    return invoice;
  }

  const event = (type: string, object: Json, created: number, previous?: Json): Json => ({
    id: newId('evt', 24),
    object: 'event',
    api_version: STRIPE_API_VERSION,
    created,
    data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });

  /** Stripe's scheme: t=<unix>,v1=hex(HMAC-SHA256(secret, `${t}.${payload}`)). */
  const signatureFor = (payload: string, t = nowSeconds()) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex')}`;

  async function deliver(evt: Json, links: { session?: string; subscription?: string }): Promise<Delivery> {
    const payload = JSON.stringify(evt, null, 2);
    const record: Delivery = {
      event: { id: evt.id, type: evt.type, created: evt.created },
      ...links,
      endpoint,
      delivered_at: new Date().toISOString(),
    };
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signatureFor(payload), 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
        body: payload,
        signal: AbortSignal.timeout(20_000),
      });
      const text = await res.text();
      record.status = res.status;
      try {
        record.answer = JSON.parse(text);
      } catch {
        record.answer = text.slice(0, 2000);
      }
    } catch (error) {
      record.error = (error as Error).name === 'TimeoutError' ? 'timed out' : 'could not connect';
    }
    state.deliveries.push(record);
    return record;
  }

  app.get('/stripe/pay/:id', (c) => {
    const session = sessionById(c.req.param('id'));
    if (!session) return c.html(page('Not found', '<p>This checkout session does not exist.</p>'), 404);
    return c.html(checkoutPage(publicSession(session), session._line_items));
  });

  app.post('/stripe/pay/:id', async (c) => {
    const session = sessionById(c.req.param('id'));
    if (!session) return c.html(page('Not found', '<p>This checkout session does not exist.</p>'), 404);
    if (publicSession(session).status !== 'open') {
      return c.html(page('No longer active', '<p>This checkout session is no longer active.</p>'), 400);
    }
    const form = await c.req.parseBody();
    const email = session.customer ? customerById(session.customer)?.email : (session.customer_email ?? String(form.email ?? '').trim());
    if (!email || !EMAIL.test(email)) return c.html(checkoutPage(publicSession(session), session._line_items, 'Enter a valid e-mail address.'), 400);
    const events = complete(session, email);
    const named = typeof form.delivery === 'string' && form.delivery ? form.delivery.split(',') : undefined;
    const order = named ? named.map((type) => events.find((e) => e.type === type)).filter((e): e is Json => e !== undefined) : purchaseOrder(events);
    for (const evt of order) await deliver(evt, { session: session.id, subscription: session.subscription });
    if (!session.success_url) return c.html(page('Thank you', '<p>Your payment is complete.</p>'));
    return c.redirect(String(session.success_url).replaceAll('{CHECKOUT_SESSION_ID}', session.id), 303);
  });

  // ---- Further events, on demand ----

  const EMITTABLE = ['invoice.paid', 'invoice.payment_failed', 'customer.subscription.updated', 'customer.subscription.deleted'];
  const SUBSCRIPTION_STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'];
  const localError = (c: Context, status: 400 | 404, code: string, message: string) => c.json({ error: { code, message } }, status);

  app.post('/_local/stripe/events', async (c) => {
    const body = ((await c.req.json().catch(() => null)) ?? {}) as Json;
    if (!EMITTABLE.includes(body.type)) return localError(c, 400, 'invalid_type', `type must be one of: ${EMITTABLE.join(', ')}`);
    const subscription = body.subscription
      ? subscriptionById(body.subscription)
      : [...state.subscriptions].reverse().find((s) => s.customer === body.customer);
    if (!subscription) return localError(c, 404, 'no_subscription', 'Name an existing subscription, or a customer that has one');
    if (body.status !== undefined && !SUBSCRIPTION_STATUSES.includes(body.status)) {
      return localError(c, 400, 'invalid_status', `status must be one of: ${SUBSCRIPTION_STATUSES.join(', ')}`);
    }
    const price = body.plan === undefined ? undefined : (Object.keys(STRIPE_PRICES) as PriceId[]).find((p) => STRIPE_PRICES[p].plan === body.plan);
    if (body.plan !== undefined && !price) return localError(c, 400, 'invalid_plan', 'plan must be starter, pro or enterprise');
    const ago = Number.isInteger(body.createdSecondsAgo) && body.createdSecondsAgo > 0 ? (body.createdSecondsAgo as number) : 0;
    const created = nowSeconds() - ago;

    let evt: Json;
    if (body.type === 'invoice.paid' || body.type === 'invoice.payment_failed') {
      const paid = body.type === 'invoice.paid';
      const invoice = newInvoice(subscription, 'subscription_cycle', paid ? 'paid' : 'open', created);
      subscription.status = paid ? 'active' : 'past_due';
      evt = event(body.type, invoice, created);
    } else if (body.type === 'customer.subscription.deleted') {
      evt = cancelSubscription(subscription, created);
    } else {
      evt = updateSubscription(subscription, { status: body.status, price }, created);
    }
    const delivery = body.deliver === false ? null : await deliver(evt, { subscription: subscription.id });
    return c.json({ event: evt, delivery }, 201);
  });

  /** Ends a subscription now: the event Stripe sends when it is deleted. */
  function cancelSubscription(subscription: Json, created: number): Json {
    const previous = { status: subscription.status };
    Object.assign(subscription, { status: 'canceled', canceled_at: created, ended_at: created });
    return event('customer.subscription.deleted', subscription, created, previous);
  }

  /** Changes a subscription's status or price: the customer.subscription.updated event, with what it was before. */
  function updateSubscription(subscription: Json, change: { status?: string; price?: PriceId }, created: number): Json {
    const previous: Json = {};
    if (change.status) {
      previous.status = subscription.status;
      subscription.status = change.status;
    }
    if (change.price) {
      previous.items = structuredClone(subscription.items);
      subscription.items.data[0].price = priceJson(change.price);
    }
    return event('customer.subscription.updated', subscription, created, previous);
  }

  // ---- The customer portal's page ----

  const portalById = (id: string) => state.portalSessions.find((x) => x.id === id);
  const liveSubscriptionsOf = (customer: string) => state.subscriptions.filter((x) => x.customer === customer && x.status !== 'canceled');

  app.get('/stripe/portal/:id', (c) => {
    const session = portalById(c.req.param('id'));
    if (!session) return c.html(page('Not found', '<h1>This portal session does not exist</h1>'), 404);
    return c.html(portalPage(session, liveSubscriptionsOf(session.customer)));
  });

  app.post('/stripe/portal/:id', async (c) => {
    const session = portalById(c.req.param('id'));
    if (!session) return c.html(page('Not found', '<h1>This portal session does not exist</h1>'), 404);
    const form = new URLSearchParams(await c.req.text());
    const subscription = liveSubscriptionsOf(session.customer).find((x) => x.id === form.get('subscription'));
    if (!subscription) return c.html(page('Not found', '<h1>No such live subscription of this customer</h1>'), 404);
    let evt: Json;
    if (form.get('action') === 'cancel') evt = cancelSubscription(subscription, nowSeconds());
    else {
      const price = form.get('price');
      if (!price || !(price in STRIPE_PRICES)) return c.html(page('Choose a plan', '<p class="error">Choose one of the plans.</p>'), 400);
      evt = updateSubscription(subscription, { price: price as PriceId }, nowSeconds());
    }
    await deliver(evt, { subscription: subscription.id });
    return c.redirect(`/stripe/portal/${session.id}`, 303);
  });

  const sessionView = (s: Json) => ({
    ...publicSession(s),
    line_items: s._line_items,
    subscription_data: { metadata: s._subscription_metadata },
    deliveries: state.deliveries.filter((d) => d.session === s.id).map(({ endpoint: _e, ...d }) => d),
  });

  return {
    vendor: 'stripe',
    prefixes: ['/v1'],
    app: app.route('/v1', api),
    records: {
      payments: () => [...state.sessions].reverse().map(sessionView),
      'payment-events': () => [...state.deliveries].reverse(),
    },
    failure: (c) => stripeError(c, 500, UNKNOWN_ERROR),
    faultModes: {
      'fail-in-execution': async (c, next) => {
        failingInExecution.add(c.req.raw);
        await next();
        return c.res;
      },
    },
    // Stripe documents no retry header for 429; the error type is what stripe-node and people go by.
    throttle: (c) => stripeError(c, 429, { type: 'rate_limit_error', code: 'rate_limit', message: 'Request rate limit exceeded. Try again later.' }),
    reset: () => (state = emptyState()),
    differences: STRIPE_DIFFERENCES,
    dump: () => state,
    load: (saved) => (state = { ...emptyState(), ...(saved as Partial<State>) }),
  };
}

// ---- Pages ----

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Stripe Checkout (local)</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px system-ui;margin:3rem auto;max-width:28rem;padding:0 1rem}.plan{font-size:1.5rem;font-weight:600}
.price{font-size:2rem;margin:.5rem 0 1.5rem}button{font:inherit;width:100%;padding:.8rem;border:0;border-radius:6px;background:#635bff;color:#fff;cursor:pointer}
input{font:inherit;width:100%;padding:.6rem;margin:.3rem 0 1rem;box-sizing:border-box}.note{color:#666;font-size:.85rem}.error{color:#b00}</style>
</head><body>${body}<p class="note">Local Stripe emulator: no card is charged.</p></body></html>`;
}

function checkoutPage(session: Json, items: { price: PriceId; quantity: number }[], problem?: string): string {
  const item = items[0]!;
  const price = STRIPE_PRICES[item.price];
  if (session.status !== 'open') {
    return page('No longer active', `<h1>${esc(price.name)}</h1><p>This checkout session is ${esc(session.status)}.</p>`);
  }
  const emailField = session.customer_email
    ? `<p>Paying as <strong>${esc(session.customer_email)}</strong></p>`
    : session.customer
      ? ''
      : `<label>E-mail<input type="email" name="email" required autocomplete="email"></label>`;
  return page(
    `Subscribe to ${price.name}`,
    `<p class="plan" data-plan="${esc(price.plan)}">${esc(price.name)} plan</p>
<p class="price">${money(price.unit_amount * item.quantity)} <small>per month</small></p>
${problem ? `<p class="error">${esc(problem)}</p>` : ''}
<form method="post" action="/stripe/pay/${esc(session.id)}">${emailField}
<label>Card number<input name="card" value="4242 4242 4242 4242" autocomplete="off"></label>
<button type="submit" id="pay">Pay ${money(price.unit_amount * item.quantity)}</button></form>
${session.cancel_url ? `<p><a href="${esc(session.cancel_url)}">← Back</a></p>` : ''}`,
  );
}

function portalPage(session: Json, subscriptions: Json[]): string {
  const plans = Object.entries(STRIPE_PRICES) as [PriceId, (typeof STRIPE_PRICES)[PriceId]][];
  const rows = subscriptions.map((sub) => {
    const current = sub.items.data[0].price.id as PriceId;
    const options = plans.map(([id, p]) => `<option value="${esc(id)}"${id === current ? ' selected' : ''}>${esc(p.name)} · ${money(p.unit_amount)}/month</option>`).join('');
    return `<section class="subscription" data-subscription="${esc(sub.id)}" data-plan="${esc(STRIPE_PRICES[current]?.plan)}">
<p class="plan">${esc(STRIPE_PRICES[current]?.name)} plan</p><p>Status: <strong>${esc(sub.status)}</strong></p>
<form method="post" action="/stripe/portal/${esc(session.id)}"><input type="hidden" name="subscription" value="${esc(sub.id)}"><input type="hidden" name="action" value="change">
<label>Plan<select name="price">${options}</select></label><button type="submit" class="change">Update plan</button></form>
<form method="post" action="/stripe/portal/${esc(session.id)}"><input type="hidden" name="subscription" value="${esc(sub.id)}"><input type="hidden" name="action" value="cancel">
<button type="submit" class="cancel" style="background:#b00">Cancel plan</button></form></section>`;
  });
  return page(
    'Manage your subscription',
    `<h1>Your subscription</h1>${rows.join('') || '<p>No active subscription.</p>'}${session.return_url ? `<p><a href="${esc(session.return_url)}">← Return</a></p>` : ''}`,
  );
}

export const stripeVendor: LocalVendor = {
  create: (ctx) => stripeEmulator({ hostUrl: ctx.hostUrl, apiUrl: ctx.apiUrl }),
  env: (ctx) => ({
    STRIPE_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET,
    STRIPE_API_BASE: ctx.hostUrl,
    STRIPE_PRICE_STARTER: 'price_local_starter',
    STRIPE_PRICE_PRO: 'price_local_pro',
    STRIPE_PRICE_ENTERPRISE: 'price_local_enterprise',
  }),
};
