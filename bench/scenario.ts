// The bench's world: the whole local stack, with the data a real user leaves
// behind (a verified owner, an onboarded account, a booking, an enhanced
// onboarding and a crawler refresh of a small local website), so every
// function can be given a real request: each HTTP function the request a
// caller would send, each step Lambda an input it really received.
import { GetExecutionHistoryCommand, ListExecutionsCommand, ListStateMachinesCommand, SFNClient } from '@aws-sdk/client-sfn';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { LOCAL_REGION, startStack, type Stack } from '../local/stack.ts';

export const PASSWORD = 'Bench1234';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  ms: number;
}

export const randomIp = () => `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

/** Calls the local API as a front end or a provider would, from a client address of its own. */
export function call(
  apiUrl: string,
  path: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string>; fromIp?: string } = {},
): Promise<Reply> {
  const url = new URL(path, apiUrl);
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const headers: Record<string, string> = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers };
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      { host: '127.0.0.1', port: url.port, path: `${url.pathname}${url.search}`, method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, localAddress: init.fromIp ?? randomIp() },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, ms });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface Scenario {
  stack: Stack;
  api: (path: string, init?: Parameters<typeof call>[2]) => Promise<Reply>;
  owner: { email: string; token: string };
  account: { id: string; slug: string; runId: string };
  /** Two accounts of clients that left (closed by their offboarding runs): one to reopen, one to erase. */
  closedAccounts: [string, string];
  siteUrl: string;
  /** A real input of each step Lambda, by function key, read off the executions' histories. */
  stepInputs: Map<string, unknown>;
  /** A verified user of its own (fresh, so a probe may log it out or reset its password). */
  newUser(): Promise<{ email: string; token: string }>;
  /** The token of the verification e-mail to this address. */
  verificationToken(email: string): Promise<string>;
  /** The recovery token of the reset e-mail to this address, its link followed as a browser would. */
  resetToken(email: string): Promise<string>;
  webhookUrls(): Promise<{ membership: string; booking: string }>;
  /** A payment event for the owner's own subscription (bought in the scenario), rendered and signed by the Stripe emulator, not delivered. */
  paymentEvent(status: 'active' | 'past_due'): Promise<{ payload: string; signature: string }>;
  /** Waits until no execution of the local stack's machines runs; true if one was running. */
  settle(): Promise<boolean>;
  close(): Promise<void>;
}

export const SERVICE_KEY = 'local-internal-api-key';
export const ADMIN_KEY = 'local-admin-api-key';

export async function startScenario(options: { workFolder: string; settings?: Record<string, string>; log?: (line: string) => void }): Promise<Scenario> {
  const site = await serveSite();
  let closing: Promise<void> | undefined;
  const stack = await startStack({
    ports: { api: 0, emulators: 0, lambda: 0, dynamodb: 0, stepFunctions: 0 },
    esbuildWorkFolder: options.workFolder,
    inProcess: true,
    // The bench sends the same owner's onboarding again in every round, and invites for the same account in every
    // round (the invitation probes): it measures the work, not the submission and invitation limits (which it still counts).
    settings: {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ONBOARDING_PER_USER: '100000/600',
      RATE_LIMIT_ONBOARDING_PER_ACCOUNT: '100000/600',
      RATE_LIMIT_ENHANCED_PER_ACCOUNT: '100000/86400',
      RATE_LIMIT_INVITATIONS: '100000/3600',
      // Nor the vendors' limits (the burst measures those, on a stack of its own): no step ever waits for a slot here.
      CLICKUP_RATE_LIMIT: '100000/1',
      RESEND_RATE_LIMIT: '100000/1',
      SLACK_RATE_LIMIT: '100000/1',
      CLOSE_RATE_LIMIT: '100000/1',
      ...options.settings,
    },
    log: options.log,
  });
  const api: Scenario['api'] = (path, init) => call(stack.urls.api, path, init);
  const expectStatus = (reply: Reply, status: number, what: string) => {
    if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
    return reply;
  };

  const mailbox = async () => (await (await fetch(`${stack.urls.emulators}/_local/emails`)).json()) as { to: string[]; text: string }[];
  /** The first match of the pattern in an e-mail to this address (newest first). */
  const mailed = async (email: string, pattern: RegExp) => {
    for (const mail of (await mailbox()).filter((m) => m.to.includes(email))) {
      const match = pattern.exec(mail.text);
      if (match) return match;
    }
    throw new Error(`nothing like ${pattern} mailed to ${email}`);
  };
  const verificationToken: Scenario['verificationToken'] = async (email) => (await mailed(email, /\/verify\?token=([A-Za-z0-9_-]+)/))[1]!;
  const resetToken: Scenario['resetToken'] = async (email) => {
    const [link] = await mailed(email, /https?:\/\/\S+\/auth\/v1\/verify\?\S+/);
    const landing = (await fetch(link, { redirect: 'manual' })).headers.get('location') ?? '';
    const token = new URLSearchParams(new URL(landing).hash.slice(1)).get('access_token');
    if (!token) throw new Error(`the reset link landed on ${landing}, without a token`);
    return token;
  };
  const newUser: Scenario['newUser'] = async () => {
    const email = `bench-${crypto.randomUUID()}@example.com`;
    const ip = randomIp();
    expectStatus(await api('/api/auth/signup', { body: { email, password: PASSWORD }, fromIp: ip }), 201, 'signup');
    expectStatus(await api('/api/verify-email', { body: { token: await verificationToken(email) }, fromIp: ip }), 200, 'verify-email');
    const login = expectStatus(await api('/api/auth/login', { body: { email, password: PASSWORD }, fromIp: ip }), 200, 'login');
    return { email, token: login.body.session.access_token as string };
  };

  const owner = await newUser();
  const company = `Bench Bakery ${Math.random().toString(36).slice(2, 8)}`;
  const onboarded = expectStatus(
    await api('/api/onboarding-v2', { body: { email: owner.email, companyName: company, companyUrl: site.origin }, headers: { authorization: `Bearer ${owner.token}` } }),
    200,
    'onboarding-v2',
  );
  const account = { id: onboarded.body.accountId as string, slug: onboarded.body.portalSlug as string, runId: onboarded.body.executionId as string };
  const webhookUrls = async () =>
    expectStatus(await api(`/api/accounts/${account.id}/webhooks`, { headers: { authorization: `Bearer ${owner.token}` } }), 200, 'webhook settings').body.urls as {
      membership: string;
      booking: string;
    };

  // The owner buys the pro plan on the emulator's hosted page, so payment events name a real subscription.
  const chosen = expectStatus(await api('/api/checkout?plan=pro', { headers: { authorization: `Bearer ${owner.token}` } }), 303, 'checkout');
  const payPage = String(chosen.headers.location);
  const card = /name="card" value="([^"]*)"/.exec(await (await fetch(payPage)).text())?.[1] ?? '';
  const paid = await fetch(payPage, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
  if (paid.status !== 303) throw new Error(`paying on the hosted page: expected 303, got ${paid.status}`);
  const sessions = (await (await fetch(`${stack.urls.emulators}/_local/payments`)).json()) as { subscription?: string }[];
  const subscription = sessions[0]?.subscription;
  if (!subscription) throw new Error('the purchase left no subscription');
  const paymentEvent: Scenario['paymentEvent'] = async (status) => {
    const rendered = await fetch(`${stack.urls.emulators}/_local/stripe/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'customer.subscription.updated', subscription, status, deliver: false }),
    });
    if (rendered.status !== 201) throw new Error(`rendering a payment event: ${rendered.status}`);
    const payload = JSON.stringify(((await rendered.json()) as { event: unknown }).event);
    return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: stack.env.STRIPE_WEBHOOK_SECRET! }) };
  };

  // A booking, an enhanced onboarding and a crawler refresh, so their machines' steps have real inputs.
  const booked = await api(new URL((await webhookUrls()).booking).pathname, { raw: calendlyBooking(), headers: { 'content-type': 'application/json' } });
  expectStatus(booked, 200, 'booking webhook');
  expectStatus(
    await api('/api/onboarding/enhanced', { body: { email: owner.email, companyName: company, companyUrl: site.origin }, headers: { 'x-api-key': SERVICE_KEY } }),
    200,
    'enhanced onboarding',
  );
  const refresh = expectStatus(
    await api(`/api/crawler/accounts/${account.id}/refresh`, {
      body: { url: site.origin, industry: 'Bakery', city: 'Springfield', region: 'Oregon' },
      headers: { 'x-admin-key': ADMIN_KEY },
    }),
    202,
    'crawler refresh',
  );
  // An import of one client, so the batch machine's step has a real input.
  expectStatus(
    await api('/api/onboarding/batch', {
      body: { companies: [{ email: `import-${crypto.randomUUID()}@example.com`, companyName: 'Bench Import' }] },
      headers: { 'x-admin-key': ADMIN_KEY },
    }),
    202,
    'batch import',
  );
  // Two clients who leave, so the offboarding machine's steps have real inputs, and reopening and erasing closed accounts.
  const leaving = async () => {
    const person = await newUser();
    const auth = { authorization: `Bearer ${person.token}` };
    const opened = expectStatus(await api('/api/onboarding-v2', { body: { email: person.email, companyName: 'Bench Leaving' }, headers: auth }), 200, 'onboarding a leaving client');
    const id = opened.body.accountId as string;
    expectStatus(await api(`/api/accounts/${id}/offboard`, { body: { reason: 'Bench' }, headers: auth }), 202, 'offboarding');
    return id;
  };
  const closedAccounts: [string, string] = [await leaving(), await leaving()];
  const sfn = new SFNClient({ endpoint: stack.urls.stepFunctions, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await settled(sfn);
  const stepInputs = await lambdaInputs(sfn);
  if (stepInputs.size === 0) throw new Error(`no step inputs recorded (refresh job ${refresh.body?.jobId})`);

  return {
    stack,
    api,
    owner,
    account,
    closedAccounts,
    siteUrl: site.origin,
    stepInputs,
    newUser,
    verificationToken,
    resetToken,
    webhookUrls,
    paymentEvent,
    settle: () => settled(sfn),
    // Once, whoever asks first (the bench's end, or its Ctrl-C while a part still runs).
    close: () =>
      (closing ??= (async () => {
        await stack.stop();
        await new Promise((r) => site.server.close(r));
      })()),
  };
}

/** A Calendly invitee.created delivery, for a booking of its own. */
export function calendlyBooking(id = crypto.randomUUID()): string {
  return JSON.stringify({
    event: 'invitee.created',
    created_at: new Date().toISOString(),
    payload: {
      uri: `https://api.calendly.com/scheduled_events/EV-${id}/invitees/INV-${id}`,
      email: `guest-${id}@example.org`,
      name: `Guest ${id.slice(0, 8)}`,
      timezone: 'Europe/Berlin',
      rescheduled: false,
      scheduled_event: { name: 'Kick-off call', start_time: '2026-12-07T08:00:00.000000Z', end_time: '2026-12-07T08:30:00.000000Z' },
    },
  });
}

/** Waits until no execution of any machine is running; true if one was. */
async function settled(sfn: SFNClient): Promise<boolean> {
  const { stateMachines = [] } = await sfn.send(new ListStateMachinesCommand({}));
  for (let i = 0; i < 600; i++) {
    let running = 0;
    for (const m of stateMachines) {
      const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn: m.stateMachineArn, statusFilter: 'RUNNING' }));
      running += executions.length;
    }
    if (running === 0) return i > 0;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('executions still running after a minute');
}

/** The first input each Lambda got, from the LambdaFunctionScheduled events of every execution. */
async function lambdaInputs(sfn: SFNClient): Promise<Map<string, unknown>> {
  const inputs = new Map<string, unknown>();
  const { stateMachines = [] } = await sfn.send(new ListStateMachinesCommand({}));
  for (const m of stateMachines) {
    const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn: m.stateMachineArn }));
    for (const e of executions) {
      const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: e.executionArn }));
      for (const event of events) {
        const details = event.lambdaFunctionScheduledEventDetails;
        if (!details?.resource || details.input === undefined) continue;
        // The resource is the function's ARN or name: <service>-<stage>-<key>.
        const key = /-local-([a-z0-9-]+)$/.exec(details.resource.split(':').at(-1)!)?.[1];
        if (key && !inputs.has(key)) inputs.set(key, JSON.parse(details.input));
      }
    }
  }
  return inputs;
}

/** A small bakery website on loopback, for the crawler and the page measurement. */
async function serveSite(): Promise<{ origin: string; server: Server }> {
  const page = (title: string, body: string, links: string[]) =>
    `<!doctype html><html><head><title>${title}</title><meta name="description" content="${title} at the bakery"></head><body><h1>${title}</h1><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
  const pages: Record<string, string> = {
    '/': page('Home', 'Fresh bread every morning, baked since 1952.', ['/menu', '/contact']),
    '/menu': page('Menu', 'Sourdough, rye, "seeded" loaves, and pastries, made daily.', ['/']),
    '/contact': page('Contact', 'Main Street 1, Springfield. Call us, or just drop by.', ['/']),
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    const html = pages[path];
    if (!html) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // A *.localhost name: a website address the form accepts, and loopback all the same.
  return { origin: `http://bakery.localhost:${(server.address() as AddressInfo).port}`, server };
}
