// Every route of the catalog, called by every kind of caller, gets the answer
// the permission table says: this test derives the expected answer from the
// route's access rule and the table (lib/permissions.ts) on its own,
// and sends the real request over HTTP. A route added later is covered as it
// is added. Anonymous callers get their 401 before any body validation: their
// requests carry bodies that would not validate.
import { beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../lib/api/catalog.ts';
import { keyKindOf, type Access } from '../../lib/access/rules.ts';
import type { RouteSpec } from '../../lib/http/route.ts';
import { PERMISSIONS, type Role } from '../../lib/permissions.ts';
import { api, errorCode, type Reply } from '../support/http.ts';
import { SERVICE_KEY } from '../support/onboarding.ts';
import { bearer, client, logIn, signedInUser, verifiedUser } from '../support/users.ts';

type Principal = 'anonymous' | 'stranger' | 'otherOwner' | 'member' | 'admin' | 'owner' | 'internalKey' | 'adminKey';
const PRINCIPALS: Principal[] = ['anonymous', 'stranger', 'otherOwner', 'member', 'admin', 'owner', 'internalKey', 'adminKey'];
const ROLE_OF: Partial<Record<Principal, Role>> = { member: 'member', admin: 'admin', owner: 'owner' };

type Expected = 'allowed' | 'redirect' | 401 | 403 | 404;

/** What the internal service key (the portal's backend) may do, on the routes that take it: onboard, and read runs. */
const SERVICE_MAY: readonly string[] = ['onboard', 'read'];

/** Whether the route takes this key: a key it does not take is no credential there, and its caller is anonymous. */
const takesKey = (access: Access, who: Principal) =>
  (who === 'adminKey' && keyKindOf(access).includes('admin')) || (who === 'internalKey' && keyKindOf(access).includes('internal'));

/** The answer the rule and the permission table give this caller, worked out here independently of the guard. */
function expected(access: Access, caller: Principal): Expected {
  // On a route for members, the service key is refused as a caller that may not act there (it never grants a role or shows a secret).
  if (caller === 'internalKey' && access.who === 'member') return takesKey(access, caller) && SERVICE_MAY.includes(access.permission) ? 'allowed' : 403;
  const who = (caller === 'internalKey' || caller === 'adminKey') && !takesKey(access, caller) ? 'anonymous' : caller;
  switch (access.who) {
    case 'anyone':
    case 'path-secret':
    case 'signed':
      return 'allowed';
    case 'user':
      return who === 'anonymous' ? 401 : 'allowed';
    case 'admin':
      if (who === 'adminKey' || who === 'internalKey') return 'allowed';
      return who === 'anonymous' ? 401 : 403;
    case 'member': {
      if (who === 'adminKey') return 'allowed';
      if (who === 'anonymous') return access.anonymous ? 'redirect' : 401;
      const role = ROLE_OF[who];
      if (!role) return 404;
      return (PERMISSIONS[access.permission] as readonly Role[]).includes(role) ? 'allowed' : 403;
    }
  }
}

/** The route's request, aimed at the target account, with bodies that pass the guard but not (for most) validation. */
function requestFor(route: RouteSpec, target: string, who: Principal) {
  const path = route.path
    .replace('{accountId}', target)
    .replace('{runId}', `${target}-0123456789abcdef`)
    .replace('{userId}', crypto.randomUUID())
    .replace('{invitationId}', crypto.randomUUID())
    .replace('{secret}', 'no-such-secret');
  const naming = route.access.who === 'member' && 'named' in route.access.account ? route.access.account.named : undefined;
  const query = naming === 'query' ? `?accountId=${target}&plan=no-such-plan` : '';
  const body = who === 'anonymous' ? { nonsense: true } : naming === 'body' ? { accountId: target } : {};
  return { method: route.method, path: `${path}${query}`, body: route.body !== undefined ? body : undefined };
}

function judge(reply: Reply, want: Expected, what: string) {
  if (want === 'redirect') return expect(reply.status, what).toBe(302);
  if (want !== 'allowed') {
    expect(reply.status, what).toBe(want);
    const code = errorCode(reply);
    if (want === 403) expect(code, what).toBe('forbidden');
    if (want === 404) expect(code, what).toBe('account_not_found');
    return;
  }
  expect(reply.status, what).not.toBe(401);
  expect(reply.status, what).toBeLessThan(500);
  if (reply.status === 403) expect(errorCode(reply), what).not.toBe('forbidden');
  if (reply.status === 404) expect(errorCode(reply), what).not.toBe('account_not_found');
}

const headers: Record<Principal, Record<string, string>> = {} as never;
let target: string;

beforeAll(async () => {
  const owner = await signedInUser({ companyName: `Matrix ${crypto.randomUUID().slice(0, 6)}` });
  const mine = await owner.client.get('/api/auth/me', bearer(owner.accessToken));
  target = mine.body.accounts[0].accountId;
  headers.owner = bearer(owner.accessToken);
  for (const role of ['admin', 'member'] as const) {
    const c = client();
    const email = `${role}-${crypto.randomUUID()}@example.com`;
    const invited = await owner.client.post(`/api/accounts/${target}/invitations`, { email, role }, headers.owner);
    expect(invited.status).toBe(201);
    await verifiedUser(c, undefined, email);
    const token = (await logIn(c, email)).body.session.access_token as string;
    expect((await c.post(`/api/invitations/${invited.body.invitationId}/accept`, undefined, bearer(token))).status).toBe(200);
    headers[role] = bearer(token);
  }
  headers.stranger = bearer((await signedInUser()).accessToken);
  headers.otherOwner = bearer((await signedInUser({ companyName: `Elsewhere ${crypto.randomUUID().slice(0, 6)}` })).accessToken);
  headers.anonymous = {};
  headers.internalKey = SERVICE_KEY;
  headers.adminKey = { 'x-admin-key': 'local-admin-api-key' };
}, 180_000);

// Leaving and logging out change who the callers are: they go last.
const last = ['leaveAccount', 'logout'];
const routes = [...catalog].sort((a, b) => last.indexOf(a.operationId) - last.indexOf(b.operationId));

describe('the permission table, route by route', () => {
  it('covers every route of the catalog with a rule', () => {
    for (const route of catalog) expect(['anyone', 'path-secret', 'signed', 'user', 'admin', 'member'], route.operationId).toContain(route.access?.who);
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      for (const who of PRINCIPALS) {
        const want = expected(route.access, who);
        const req = requestFor(route, target, who);
        const reply = await api(req.path, { method: req.method, body: req.body, headers: headers[who] });
        judge(reply, want, `${who} → ${req.method} ${req.path}: ${reply.status} ${reply.text.slice(0, 160)}`);
      }
    });
  }
});
