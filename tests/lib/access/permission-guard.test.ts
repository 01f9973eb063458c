// The guard against in-memory ports: who is calling, and what they may do to
// the account the request names.
import { describe, expect, it } from 'vitest';
import { permissionGuard } from '../../../lib/access/permission-guard.ts';
import { refuseIfClosed } from '../../../lib/accounts/lifecycle.ts';
import { mayAct } from '../../../lib/permissions.ts';
import type { Membership } from '../../../lib/accounts/memberships.ts';
import type { Caller } from '../../../lib/access/caller.ts';
import type { Guard, Naming } from '../../../lib/access/guard.ts';
import { keyKindOf, type Access, type KeyKind } from '../../../lib/access/rules.ts';
import { fakeMemberships, user } from '../../support/account-fakes.ts';
import { fakeAccounts } from '../../support/fakes.ts';

const ACCOUNT = '11111111-2222-4333-8444-555555555555';
const OTHER = '99999999-2222-4333-8444-555555555555';

function setup() {
  const memberships = fakeMemberships();
  const accounts = fakeAccounts();
  const tokens = new Map<string, ReturnType<typeof user>>();
  let identityCalls = 0;
  const identity = {
    userForAccessToken: async (token: string) => {
      identityCalls++;
      return tokens.get(token);
    },
  };
  const keys: Record<KeyKind, string | undefined> = { none: undefined, internal: 'service-key', admin: 'admin-key', 'admin+internal': 'admin-key' };
  const guards = Object.fromEntries(
    (['none', 'internal', 'admin', 'admin+internal'] as const).map((kind) => [
      kind,
      permissionGuard(kind, () => ({ identity, memberships, refuseIfClosed: refuseIfClosed(accounts.store), key: keys[kind], serviceKey: kind === 'admin+internal' ? 'service-key' : undefined })),
    ]),
  ) as Record<KeyKind, Guard>;
  /** Each rule is enforced by the guard of its kind of key, as the HTTP stack insists. */
  const guard: Guard = {
    takes: 'none',
    readsRoles: true,
    authenticate: (access, headers) => guards[keyKindOf(access)].authenticate(access, headers),
    authorize: (access, caller, naming) => guards[keyKindOf(access)].authorize(access, caller, naming),
  };
  const person = async (role?: 'owner' | 'admin' | 'member', account = ACCOUNT, extra: Parameters<typeof user>[0] = {}) => {
    const u = user(extra);
    const token = `token-${u.id}`;
    tokens.set(token, u);
    if (role) await memberships.join({ accountId: account, userId: u.id, email: u.email, role, via: 'created' });
    return { user: u, headers: { authorization: `Bearer ${token}` } };
  };
  return { guard, memberships, accounts, person, identityCalls: () => identityCalls };
}

const read: Access = { who: 'member', permission: 'read', account: { path: 'accountId' } };
const manage: Access = { who: 'member', permission: 'manage', account: { path: 'accountId' } };
const onboard: Access = { who: 'member', permission: 'onboard', account: { named: 'body' }, serviceKey: true };
const runs: Access = { who: 'member', permission: 'read', account: { runPath: 'runId' }, serviceKey: true };
const path = (accountId = ACCOUNT, method = 'GET'): Naming => ({ method, pathParams: { accountId }, query: {}, body: undefined });

async function decide(g: ReturnType<typeof setup>['guard'], access: Access, headers: Record<string, string>, naming: Naming = path()) {
  const caller: Caller = await g.authenticate(access, headers);
  return g.authorize(access, caller, naming);
}

describe('the access guard', () => {
  it('lets anyone through public, path-secret and signed routes without asking the identity provider', async () => {
    const s = setup();
    for (const who of ['anyone', 'path-secret', 'signed'] as const) {
      expect(await decide(s.guard, { who }, { authorization: 'Bearer whatever' })).toEqual({ caller: { kind: 'anonymous' } });
    }
    expect(s.identityCalls()).toBe(0);
  });

  it('refuses a route that needs a caller with 401 for no token, an unknown token, or a wrong key', async () => {
    const s = setup();
    await expect(s.guard.authenticate({ who: 'user' }, {})).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(s.guard.authenticate({ who: 'user' }, { authorization: 'Bearer nope' })).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(s.guard.authenticate(onboard, { 'x-api-key': 'wrong' })).rejects.toMatchObject({ code: 'unauthenticated' });
    // The admin key is no credential on a member's route.
    await expect(s.guard.authenticate(read, { 'x-admin-key': 'admin-key' })).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('never tries a wrong key as a user, even with a valid bearer token beside it', async () => {
    const s = setup();
    const owner = await s.person('owner');
    await expect(s.guard.authenticate(onboard, { ...owner.headers, 'x-api-key': 'wrong' })).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('lets the internal service key onboard and read runs, and nothing else: no secret, no role, refused with 403 whatever its value', async () => {
    const s = setup();
    expect(await decide(s.guard, onboard, { 'x-api-key': 'service-key' }, { method: 'POST', pathParams: {}, query: {}, body: { accountId: ACCOUNT } })).toEqual({
      caller: { kind: 'service' },
      account: { id: ACCOUNT },
    });
    expect(await decide(s.guard, runs, { 'x-api-key': 'service-key' }, { method: 'GET', pathParams: { runId: `${ACCOUNT}-0123456789abcdef` }, query: {}, body: undefined })).toMatchObject({
      caller: { kind: 'service' },
    });
    for (const access of [manage, read, { ...read, permission: 'invite' } as Access, { ...read, permission: 'billing' } as Access]) {
      for (const key of ['service-key', 'wrong']) await expect(decide(s.guard, access, { 'x-api-key': key })).rejects.toMatchObject({ code: 'forbidden' });
    }
    // Even a rule that took the key for more would not let it act beyond what the service may.
    const widened = { who: 'member', permission: 'manage', account: { path: 'accountId' }, serviceKey: true } as unknown as Access;
    await expect(decide(s.guard, widened, { 'x-api-key': 'service-key' })).rejects.toMatchObject({ code: 'forbidden' });
    expect(s.identityCalls()).toBe(0);
  });

  it('grants by role from the permission table: 404 for a stranger or another account, 403 for a role short of it', async () => {
    const s = setup();
    const owner = await s.person('owner');
    const admin = await s.person('admin');
    const member = await s.person('member');
    const stranger = await s.person();
    const otherOwner = await s.person('owner', OTHER);
    expect(await decide(s.guard, manage, owner.headers)).toMatchObject({ account: { id: ACCOUNT, role: 'owner' } });
    await expect(decide(s.guard, manage, admin.headers)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(decide(s.guard, manage, member.headers)).rejects.toMatchObject({ code: 'forbidden' });
    expect(await decide(s.guard, read, member.headers)).toMatchObject({ account: { id: ACCOUNT, role: 'member' } });
    await expect(decide(s.guard, read, stranger.headers)).rejects.toMatchObject({ code: 'account_not_found' });
    await expect(decide(s.guard, read, otherOwner.headers)).rejects.toMatchObject({ code: 'account_not_found' });
  });

  it('ends access with the membership: a removed member is a stranger on the next request', async () => {
    const s = setup();
    const member = await s.person('member');
    await s.memberships.remove(ACCOUNT, member.user.id, 'member');
    await expect(decide(s.guard, read, member.headers)).rejects.toMatchObject({ code: 'account_not_found' });
  });

  it("falls to the caller's only account when the request names none; with several, 400 names the choice; with none, no account", async () => {
    const s = setup();
    const body = (accountId?: string) => ({ method: 'POST', pathParams: {}, query: {}, body: accountId ? { accountId } : {} });
    const single = await s.person('admin');
    expect(await decide(s.guard, onboard, single.headers, body())).toMatchObject({ account: { id: ACCOUNT, role: 'admin' } });
    const fresh = await s.person();
    expect(await decide(s.guard, onboard, fresh.headers, body())).toEqual({ caller: { kind: 'user', user: fresh.user } });
    const both = await s.person('owner');
    await s.memberships.join({ accountId: OTHER, userId: both.user.id, email: both.user.email, role: 'owner', via: 'created' });
    const error = await decide(s.guard, onboard, both.headers, body()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'account_required', details: [{ path: '/body/accountId', message: expect.stringContaining(OTHER) }] });
    expect(await decide(s.guard, onboard, both.headers, body(OTHER))).toMatchObject({ account: { id: OTHER, role: 'owner' } });
    const member = await s.person('member');
    await expect(decide(s.guard, onboard, member.headers, body())).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('refuses a malformed account id as invalid input before looking anything up', async () => {
    const s = setup();
    const owner = await s.person('owner');
    await expect(decide(s.guard, read, owner.headers, path('../../etc'))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(decide(s.guard, onboard, owner.headers, { method: 'POST', pathParams: {}, query: {}, body: { accountId: 42 } })).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/body/accountId' }],
    });
  });

  it("reads a run's account from its id, and knows no run whose id is not one", async () => {
    const s = setup();
    const owner = await s.person('member');
    const run: Access = { who: 'member', permission: 'read', account: { runPath: 'runId' }, serviceKey: true };
    const runId = (id: string) => ({ method: 'GET', pathParams: { runId: id }, query: {}, body: undefined });
    expect(await decide(s.guard, run, owner.headers, runId(`${ACCOUNT}-0123456789abcdef`))).toMatchObject({ account: { id: ACCOUNT } });
    await expect(decide(s.guard, run, owner.headers, runId(`${OTHER}-0123456789abcdef`))).rejects.toMatchObject({ code: 'account_not_found' });
    await expect(decide(s.guard, run, owner.headers, runId('not-a-run'))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('admits admins: the admin key, or a user whose app_metadata says admin', async () => {
    const s = setup();
    const admin = await s.person(undefined, ACCOUNT, { appMetadata: { role: 'admin' } });
    const plain = await s.person();
    expect((await decide(s.guard, { who: 'admin' }, { 'x-admin-key': 'admin-key' })).caller).toEqual({ kind: 'admin-key' });
    expect((await decide(s.guard, { who: 'admin' }, admin.headers)).caller).toMatchObject({ kind: 'user' });
    await expect(decide(s.guard, { who: 'admin' }, plain.headers)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(decide(s.guard, { who: 'admin' }, { 'x-api-key': 'service-key' })).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('lets anyone through a public route that recognises admins, and tells the handler only an admin is one', async () => {
    const s = setup();
    const status: Access = { who: 'anyone', recognise: 'admin' };
    expect(keyKindOf(status)).toBe('admin');
    const admin = await s.person(undefined, ACCOUNT, { appMetadata: { role: 'admin' } });
    const plain = await s.person('owner');
    expect(await decide(s.guard, status, {})).toEqual({ caller: { kind: 'anonymous' } });
    expect(s.identityCalls()).toBe(0);
    expect(await decide(s.guard, status, { 'x-admin-key': 'admin-key' })).toEqual({ caller: { kind: 'admin-key' } });
    expect((await decide(s.guard, status, admin.headers)).caller).toMatchObject({ kind: 'user', user: { id: admin.user.id } });
    // Anyone else is anyone: a user who is not an admin gets what an anonymous caller gets.
    expect(await decide(s.guard, status, plain.headers)).toEqual({ caller: { kind: 'anonymous' } });
    // A credential that is sent but wrong is refused, never taken as anonymous; a key the route does not take is no credential.
    await expect(decide(s.guard, status, { 'x-admin-key': 'wrong' })).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(decide(s.guard, status, { authorization: 'Bearer expired' })).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(await decide(s.guard, status, { 'x-api-key': 'service-key' })).toEqual({ caller: { kind: 'anonymous' } });
  });

  it('passes an anonymous caller on where the rule says so (the checkout redirect sends them to sign up)', async () => {
    const s = setup();
    const checkout: Access = { who: 'member', permission: 'billing', account: { named: 'query' }, anonymous: 'pass' };
    expect(await decide(s.guard, checkout, {}, { method: 'POST', pathParams: {}, query: {}, body: undefined })).toEqual({ caller: { kind: 'anonymous' } });
    expect(await decide(s.guard, checkout, { authorization: 'Bearer expired' }, { method: 'POST', pathParams: {}, query: {}, body: undefined })).toEqual({ caller: { kind: 'anonymous' } });
  });
});

describe('mayAct: the guard\'s rule for a membership, asked again where what a user started takes effect later', () => {
  const membership = (role: Membership['role'], status: Membership['status'] = 'active'): Membership => ({
    account_id: 'acct-1',
    user_id: 'user-1',
    email: 'user-1@example.com',
    role,
    status,
    joined_via: 'invitation',
    joined_at: 'then',
    updated_at: 'then',
  });

  it('grants billing to active owners and admins only, never to a removed member or no membership', () => {
    expect(mayAct(membership('owner'), 'billing')).toBe(true);
    expect(mayAct(membership('admin'), 'billing')).toBe(true);
    expect(mayAct(membership('member'), 'billing')).toBe(false);
    expect(mayAct(membership('owner', 'removed'), 'billing')).toBe(false);
    expect(mayAct(membership('admin', 'removed'), 'billing')).toBe(false);
    expect(mayAct(undefined, 'billing')).toBe(false);
    expect(mayAct(membership('admin'), 'manage')).toBe(false);
  });

  it("admits the agency's own systems to a route that takes both keys: the admin key, the service key, or an admin user; nobody else", async () => {
    const s = setup();
    const agency: Access = { who: 'admin', serviceKey: true };
    expect(await decide(s.guard, agency, { 'x-api-key': 'service-key' })).toEqual({ caller: { kind: 'service' } });
    expect(await decide(s.guard, agency, { 'x-admin-key': 'admin-key' })).toEqual({ caller: { kind: 'admin-key' } });
    const admin = await s.person(undefined, ACCOUNT, { appMetadata: { role: 'admin' } });
    expect((await decide(s.guard, agency, admin.headers)).caller).toMatchObject({ kind: 'user' });
    const owner = await s.person('owner');
    await expect(decide(s.guard, agency, owner.headers)).rejects.toMatchObject({ name: 'Forbidden' });
    await expect(decide(s.guard, agency, { 'x-api-key': 'admin-key' })).rejects.toMatchObject({ name: 'Unauthenticated' });
    await expect(decide(s.guard, agency, { 'x-admin-key': 'service-key' })).rejects.toMatchObject({ name: 'Unauthenticated' });
    await expect(decide(s.guard, agency, {})).rejects.toThrow('Send the admin key (x-admin-key) or the API key (x-api-key) or a bearer token');
    // A route for admins only still refuses the service key: it is no credential there.
    await expect(decide(s.guard, { who: 'admin' }, { 'x-api-key': 'service-key' })).rejects.toMatchObject({ name: 'Unauthenticated' });
  });

  describe('on a closing or closed account', () => {
    const invite: Access = { who: 'member', permission: 'invite', account: { path: 'accountId' } };
    const close: Access = { who: 'member', permission: 'close', account: { path: 'accountId' }, adminKey: true };
    const withStatus = async (s: ReturnType<typeof setup>, status: 'offboarding' | 'closed' | 'erased') => {
      await s.accounts.store.saveAccountDetails(ACCOUNT, { company_name: 'Acme' });
      s.accounts.accounts.set(ACCOUNT, { ...s.accounts.accounts.get(ACCOUNT)!, status });
    };

    it.each(['offboarding', 'closed', 'erased'] as const)('refuses every write of a member, the service key or the admin key with 409 account_closed (%s), reads still pass', async (status) => {
      const s = setup();
      const owner = await s.person('owner');
      await withStatus(s, status);
      for (const [access, headers, naming] of [
        [invite, owner.headers, path(ACCOUNT, 'POST')],
        [manage, owner.headers, path(ACCOUNT, 'PATCH')],
        [onboard, { 'x-api-key': 'service-key' }, { method: 'POST', pathParams: {}, query: {}, body: { accountId: ACCOUNT } }],
        [onboard, owner.headers, { method: 'POST', pathParams: {}, query: {}, body: {} }],
      ] as const) {
        await expect(decide(s.guard, access, headers, naming), `${access.permission}`).rejects.toMatchObject({ name: 'Conflict', code: 'account_closed' });
      }
      // Reading it, and listing what it has: GET routes, whatever their permission.
      expect(await decide(s.guard, read, owner.headers)).toMatchObject({ account: { id: ACCOUNT, role: 'owner' } });
      expect(await decide(s.guard, invite, owner.headers, path(ACCOUNT, 'GET'))).toMatchObject({ account: { id: ACCOUNT } });
      // Closing and reopening it: its owner, or the admin key.
      expect(await decide(s.guard, close, owner.headers, path(ACCOUNT, 'POST'))).toMatchObject({ account: { id: ACCOUNT, role: 'owner' } });
      expect(await decide(s.guard, close, { 'x-admin-key': 'admin-key' }, path(ACCOUNT, 'POST'))).toEqual({ caller: { kind: 'admin-key' }, account: { id: ACCOUNT } });
    });

    it('lets only owners and the admin key (or an admin user) close an open account; admins and members are refused, strangers see no account', async () => {
      const s = setup();
      const [owner, admin, member, stranger] = [await s.person('owner'), await s.person('admin'), await s.person('member'), await s.person()];
      expect(await decide(s.guard, close, owner.headers, path(ACCOUNT, 'POST'))).toMatchObject({ account: { id: ACCOUNT, role: 'owner' } });
      for (const who of [admin, member]) await expect(decide(s.guard, close, who.headers, path(ACCOUNT, 'POST'))).rejects.toMatchObject({ name: 'Forbidden' });
      await expect(decide(s.guard, close, stranger.headers, path(ACCOUNT, 'POST'))).rejects.toMatchObject({ name: 'NotFound' });
      const agencyAdmin = await s.person(undefined, ACCOUNT, { appMetadata: { role: 'admin' } });
      expect(await decide(s.guard, close, agencyAdmin.headers, path(ACCOUNT, 'POST'))).toMatchObject({ account: { id: ACCOUNT } });
      await expect(decide(s.guard, close, { 'x-admin-key': 'wrong' }, path(ACCOUNT, 'POST'))).rejects.toMatchObject({ name: 'Unauthenticated' });
      // The service key grants no closing.
      await expect(decide(s.guard, close, { 'x-api-key': 'service-key' }, path(ACCOUNT, 'POST'))).rejects.toMatchObject({ name: 'Forbidden' });
    });
  });
});
