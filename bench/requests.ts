// The one request each function answers in its cold-start probe: what a real
// caller sends (a signed-in owner, the service key, a provider's signed
// delivery), built against the bench's scenario, as the Lambda event API
// Gateway would hand over. Step Lambdas get an input they really received.
import type { PackagedFunction } from './build.ts';
import { ADMIN_KEY, calendlyBooking, PASSWORD, randomIp, SERVICE_KEY, type Scenario } from './scenario.ts';

export interface ProbeRequest {
  /** What is asked, for the report. */
  what: string;
  event: unknown;
}

interface HttpInit {
  path?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string;
}

type Builder = (s: Scenario, fn: PackagedFunction) => Promise<ProbeRequest>;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const service = { 'x-api-key': SERVICE_KEY };
const admin = { 'x-admin-key': ADMIN_KEY };

/** Each HTTP function's request. Every HTTP function must have one (the bench stops otherwise). */
const http: Record<string, Builder> = {
  health: async (_, fn) => get(fn, 'liveness'),
  healthz: async (_, fn) => get(fn, 'liveness'),
  status: async (_, fn) => req(fn, 'an admin reads the extended status: DynamoDB, Step Functions and every vendor checked', { headers: admin }),
  openapi: async (_, fn) => get(fn, 'the API description'),
  'not-found': async () => ({ what: 'an unknown path → 404', event: httpEvent('GET', '/no-such-page', { routeKey: '$default' }) }),

  signup: async (_, fn) => req(fn, 'a new user signs up → 201', { body: { email: `cold-${crypto.randomUUID()}@example.com`, password: PASSWORD } }),
  'verify-email': async (s, fn) => {
    const email = `cold-${crypto.randomUUID()}@example.com`;
    await s.api('/api/auth/signup', { body: { email, password: PASSWORD } });
    return req(fn, 'the link of the verification e-mail → 200', { body: { token: await s.verificationToken(email) } });
  },
  login: async (s, fn) => req(fn, 'the owner logs in → 200', { body: { email: s.owner.email, password: PASSWORD } }),
  logout: async (s, fn) => req(fn, 'a signed-in user logs out → 200', { headers: bearer((await s.newUser()).token) }),
  me: async (s, fn) => req(fn, 'the owner reads their profile → 200', { headers: bearer(s.owner.token) }),
  'forgot-password': async (s, fn) => req(fn, 'a known user asks for a reset link → 200', { body: { email: (await s.newUser()).email } }),
  'reset-password': async (s, fn) => {
    const user = await s.newUser();
    await s.api('/api/auth/forgot-password', { body: { email: user.email } });
    return req(fn, 'the reset link sets a new password → 200', { body: { token: await s.resetToken(user.email), password: 'Bench5678' } });
  },

  'checkout-redirect': async (s, fn) => req(fn, 'the owner chooses the pro plan → 303 to checkout', { query: { plan: 'pro' }, headers: bearer(s.owner.token) }),
  'checkout-session': async (_, fn) => req(fn, 'a public checkout session → 200 { url }', { body: { planId: 'pro', email: `buyer-${crypto.randomUUID()}@example.com` } }),
  'payments-webhook': async (s, fn) => {
    const { payload, signature } = await s.paymentEvent('past_due');
    return req(fn, "a signed Stripe event for the owner's subscription → 200", { raw: payload, headers: { 'stripe-signature': signature } });
  },

  'membership-webhook': async (s, fn) => {
    const secretPath = new URL((await s.webhookUrls()).membership).pathname;
    const id = crypto.randomUUID();
    const body = JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: { id: `mem_${id}`, auth: { email: `member-${id}@example.com` }, customFields: {} } });
    return req(fn, 'a new member from the membership service → 200', { path: secretPath, pathParameters: { secret: secretPath.split('/').at(-1)! }, raw: body });
  },
  'booking-webhook': async (s, fn) => {
    const secretPath = new URL((await s.webhookUrls()).booking).pathname;
    return req(fn, 'a new Calendly booking → 200 queued', { path: secretPath, pathParameters: { secret: secretPath.split('/').at(-1)! }, raw: calendlyBooking() });
  },
  'webhook-settings': async (s, fn) => req(fn, 'the owner reads their webhook URLs → 200', accountPath(s, fn, bearer(s.owner.token))),
  'rotate-webhook-secret': async (s, fn) => req(fn, 'the owner rotates the webhook URLs → 200', { ...accountPath(s, fn, bearer(s.owner.token)), body: {} }),
  'set-webhook-signing-keys': async (s, fn) => req(fn, 'the owner clears the Cal.com key → 200', { ...accountPath(s, fn, bearer(s.owner.token)), body: { calcom: null } }),

  'open-account': async (s, fn) => req(fn, 'a signed-in user opens an account → 201', { headers: bearer((await s.newUser()).token), body: { companyName: 'Bench Studio' } }),
  'get-account': async (s, fn) => req(fn, 'the owner reads the account → 200', accountPath(s, fn, bearer(s.owner.token))),
  'list-members': async (s, fn) => req(fn, 'the owner lists the members → 200', accountPath(s, fn, bearer(s.owner.token))),
  'list-invitations': async (s, fn) => req(fn, 'the owner lists the invitations → 200', accountPath(s, fn, bearer(s.owner.token))),
  'create-invitation': async (s, fn) =>
    req(fn, 'the owner invites an address → 201 (and e-mails it)', { ...accountPath(s, fn, bearer(s.owner.token)), body: { email: `invitee-${crypto.randomUUID()}@example.com`, role: 'member' } }),
  'revoke-invitation': async (s, fn) => {
    const { invitationId } = await invite(s, `invitee-${crypto.randomUUID()}@example.com`);
    return req(fn, 'the owner revokes an invitation → 200', invitationPath(s, fn, invitationId, bearer(s.owner.token)));
  },
  'accept-invitation': async (s, fn) => {
    const user = await s.newUser();
    const { invitationId } = await invite(s, user.email);
    return req(fn, 'the invited user accepts → 200', invitationPath(s, fn, invitationId, bearer(user.token)));
  },
  'change-member-role': async (s, fn) =>
    req(fn, 'the owner makes a member an admin → 200', { ...memberPath(s, fn, await joinedMember(s), bearer(s.owner.token)), body: { role: 'admin' } }),
  'remove-member': async (s, fn) => req(fn, 'the owner removes a member → 204', memberPath(s, fn, await joinedMember(s), bearer(s.owner.token))),
  'leave-account': async (s, fn) => req(fn, 'a member leaves the account → 204', accountPath(s, fn, bearer((await joinedMember(s)).token))),
  'offboard-account': async (s, fn) => {
    const person = await s.newUser();
    const opened = await s.api('/api/accounts', { body: { companyName: 'Bench Leaving Now' }, headers: bearer(person.token) });
    if (opened.status !== 201) throw new Error(`opening an account: expected 201, got ${opened.status}`);
    const id = opened.body.accountId as string;
    return req(fn, 'an owner closes their account → 202 (its offboarding run started)', {
      path: fn.route!.path.replace('{accountId}', id),
      pathParameters: { accountId: id },
      headers: bearer(person.token),
      body: { reason: 'Bench' },
    });
  },
  'reopen-account': async (s, fn) =>
    req(fn, 'the agency reopens a closed account → 202 (onboarding again)', { path: fn.route!.path.replace('{accountId}', s.closedAccounts[0]), pathParameters: { accountId: s.closedAccounts[0] }, headers: admin }),
  'erase-account': async (s, fn) =>
    req(fn, "the agency erases a closed account's personal data → 200", {
      path: fn.route!.path.replace('{accountId}', s.closedAccounts[1]),
      pathParameters: { accountId: s.closedAccounts[1] },
      headers: admin,
      body: {},
    }),
  'billing-portal': async (s, fn) => req(fn, "the owner opens the payment provider's portal → 200 { url }", accountPath(s, fn, bearer(s.owner.token))),

  'onboarding-v2': async (s, fn) =>
    req(fn, 'the owner resubmits the portal form → 200 (the run is done)', { headers: bearer(s.owner.token), body: { email: s.owner.email, companyName: 'Bench Bakery', companyUrl: s.siteUrl } }),
  'onboarding-run': async (s, fn) => req(fn, 'an operator reads a run → 200', { path: `/api/onboarding/runs/${s.account.runId}`, pathParameters: { runId: s.account.runId }, headers: service }),
  'onboarding-batch': async (_, fn) =>
    req(fn, 'the portal backend imports a client as CSV → 202', {
      raw: `email,companyName\ncold-${crypto.randomUUID()}@example.com,Cold Import\n`,
      headers: { ...service, 'content-type': 'text/csv' },
    }),
  'onboarding-batch-status': async (s, fn) => {
    const taken = await s.api('/api/onboarding/batch', { raw: JSON.stringify({ companies: [{ email: `cold-${crypto.randomUUID()}@example.com`, companyName: 'Cold Import' }] }), headers: { ...service, 'content-type': 'application/json' } });
    if (taken.status !== 202) throw new Error(`importing a client: expected 202, got ${taken.status} ${JSON.stringify(taken.body).slice(0, 300)}`);
    const batchId = taken.body.batchId as string;
    return req(fn, 'an operator reads a batch → 200', { path: `/api/onboarding/batches/${batchId}`, pathParameters: { batchId }, headers: service });
  },
  'enhanced-onboarding': async (s, fn) =>
    req(fn, 'an enhanced onboarding → 200 or 202', { headers: service, body: { email: s.owner.email, companyName: 'Bench Bakery', companyUrl: s.siteUrl } }),
  'crawler-summary': async (s, fn) => req(fn, 'an admin reads the crawler summary → 200', accountPath(s, fn, admin)),
  'crawler-refresh': async (s, fn) =>
    req(fn, 'an admin starts a crawl → 202', { ...accountPath(s, fn, admin), body: { url: s.siteUrl, industry: 'Bakery', city: 'Springfield', region: 'Oregon' } }),
};

/** The HTTP functions the cold-start probe has a request for (tests/build/bench-requests.test.ts holds it to the service's functions). */
export const probedHttpFunctions = (): string[] => Object.keys(http);

export async function probeRequest(s: Scenario, fn: PackagedFunction): Promise<ProbeRequest> {
  if (fn.route || fn.key === 'not-found') {
    const build = http[fn.key];
    if (!build) throw new Error(`bench/requests.ts has no request for the HTTP function ${fn.key}: add one`);
    return build(s, fn);
  }
  if (!s.stepInputs.has(fn.key)) throw new Error(`No execution in the bench scenario invoked ${fn.key}: extend bench/scenario.ts`);
  return { what: 'an input it received in the scenario', event: s.stepInputs.get(fn.key) };
}

function get(fn: PackagedFunction, what: string): ProbeRequest {
  return req(fn, what, {});
}

function req(fn: PackagedFunction, what: string, init: HttpInit): ProbeRequest {
  const route = fn.route!;
  return { what, event: httpEvent(route.method, init.path ?? route.path, { routeKey: `${route.method} ${route.path}`, ...init }) };
}

function accountPath(s: Scenario, fn: PackagedFunction, headers: Record<string, string>): HttpInit {
  return { path: fn.route!.path.replace('{accountId}', s.account.id), pathParameters: { accountId: s.account.id }, headers };
}

function invitationPath(s: Scenario, fn: PackagedFunction, invitationId: string, headers: Record<string, string>): HttpInit {
  const path = fn.route!.path.replace('{accountId}', s.account.id).replace('{invitationId}', invitationId);
  return { path, pathParameters: { ...(fn.route!.path.includes('{accountId}') ? { accountId: s.account.id } : {}), invitationId }, headers };
}

function memberPath(s: Scenario, fn: PackagedFunction, member: { userId: string }, headers: Record<string, string>): HttpInit {
  const path = fn.route!.path.replace('{accountId}', s.account.id).replace('{userId}', member.userId);
  return { path, pathParameters: { accountId: s.account.id, userId: member.userId }, headers };
}

/** The owner invites an address to the scenario's account, through the running service. */
async function invite(s: Scenario, email: string): Promise<{ invitationId: string }> {
  const reply = await s.api(`/api/accounts/${s.account.id}/invitations`, { body: { email, role: 'member' }, headers: bearer(s.owner.token) });
  if (reply.status !== 201) throw new Error(`inviting ${email}: expected 201, got ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body as { invitationId: string };
}

/** A fresh user who was invited to the scenario's account and accepted: a member of it. */
async function joinedMember(s: Scenario): Promise<{ userId: string; token: string }> {
  const user = await s.newUser();
  const { invitationId } = await invite(s, user.email);
  const reply = await s.api(`/api/invitations/${invitationId}/accept`, { method: 'POST', headers: bearer(user.token) });
  if (reply.status !== 200) throw new Error(`accepting ${invitationId}: expected 200, got ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  // The access token is a JWT whose subject is the user's id.
  const userId = (JSON.parse(Buffer.from(user.token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;
  return { userId, token: user.token };
}

/** An API Gateway HTTP API (payload 2.0) event, as the Lambda receives it. */
export function httpEvent(method: string, path: string, init: HttpInit & { routeKey: string }) {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const query = init.query ? new URLSearchParams(init.query).toString() : '';
  const sourceIp = randomIp();
  return {
    version: '2.0',
    routeKey: init.routeKey,
    rawPath: path,
    rawQueryString: query,
    headers: {
      host: 'api.example.test',
      'user-agent': 'bench',
      'x-forwarded-for': sourceIp,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
      ...init.headers,
    },
    ...(init.query ? { queryStringParameters: init.query } : {}),
    ...(init.pathParameters ? { pathParameters: init.pathParameters } : {}),
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp, userAgent: 'bench' },
      requestId: crypto.randomUUID(),
      routeKey: init.routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}
