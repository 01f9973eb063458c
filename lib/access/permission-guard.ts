// The Guard (./guard.ts) of the HTTP functions: it enforces a route's access
// rule (./rules.ts) in two steps, so that an anonymous caller is refused before
// the body is parsed. authenticate: who is calling (a key, a bearer token, or
// nobody); 401 when the rule needs someone. authorize: what they may do on the
// account the request names, from their membership and the permission table:
// 404 for an account they are not an active member of (whether or not it
// exists), 403 when their role lacks the permission, 400 when they have several
// accounts and the request names none, 409 account_closed for anything but
// reading, closing or reopening a closing or closed account. A wrong key is
// refused outright; a key the route does not take is no credential there; the
// service key may do only what SERVICE_PERMISSIONS lists (else 403, unread).
import { Forbidden, InvalidInput, NotFound, Unauthenticated } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import { allowedWhileClosed, allows, mayAct, PERMISSIONS, SERVICE_PERMISSIONS, serviceMay, type Permission, type Role } from '../permissions.ts';
import { ANONYMOUS, isAdmin, type Caller, type Grant } from './caller.ts';
import { bearerToken, secretsEqual } from './credentials.ts';
import type { Guard, Naming } from './guard.ts';
import { ID_PATTERN, recognisesAdmin, type Access, type AccountFrom, type KeyKind } from './rules.ts';

/** A membership as the guard reads it (lib/accounts/memberships.ts's Membership is one). */
export interface MembershipStanding {
  account_id: string;
  status: string;
  role: Role;
}

export interface GuardDeps {
  identity: Pick<IdentityProvider, 'userForAccessToken'>;
  /** Only a guard that reads roles has one (Guard.readsRoles); the HTTP stack gives it no other route. */
  memberships?: {
    get(accountId: string, userId: string): Promise<MembershipStanding | undefined>;
    ofUser(userId: string): Promise<MembershipStanding[]>;
  };
  /** With the memberships: refuses a change to a closing or closed account (lib/accounts/lifecycle.ts refuseIfClosed). */
  refuseIfClosed?: (accountId: string) => Promise<void>;
  /** The configured key of the kind this guard's routes take; unset closes the key path. */
  key?: string;
  /** For routes that take both (keyKindOf 'admin+internal'): the internal service key, beside the admin key in `key`. */
  serviceKey?: string;
}

const ID = new RegExp(ID_PATTERN);
/** A run id: its account's id (a UUID), a hyphen and a 16-hex digest (lib/onboarding/run-id.ts). */
const RUN_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-[0-9a-f]{16}$/;

/**
 * The guard, with its dependencies made on first use: a route that is called
 * without credentials never loads the identity provider's client. Without
 * `readsRoles` it is made with no membership store, for routes whose rule
 * reads no role in an account.
 */
export function permissionGuard(takes: KeyKind, makeDeps: () => GuardDeps, { readsRoles = true } = {}): Guard {
  let deps: GuardDeps | undefined;
  const use = () => (deps ??= makeDeps());
  const memberships = () => use().memberships ?? missingStore();
  const refuseIfClosed = () => use().refuseIfClosed ?? missingStore();

  return {
    takes,
    readsRoles,
    async authenticate(access, headers) {
      const recognising = access.who === 'anyone' && access.recognise === 'admin';
      if ((access.who === 'anyone' && !recognising) || access.who === 'path-secret' || access.who === 'signed') return ANONYMOUS;
      // Its holder is told plainly that the key may not act here; its value is never looked at (the function holds no key).
      if (access.who === 'member' && !access.serviceKey && headers[SERVICE_KEY_HEADER] !== undefined) throw serviceMayNot();
      const keys = keysFor(access, use);
      for (const key of keys) {
        const presented = headers[key.header];
        if (presented === undefined) continue;
        if (secretsEqual(presented, key.value())) return key.caller;
        throw new Unauthenticated(`The ${key.name} is not valid`);
      }
      const token = bearerToken(headers);
      const user = token ? await use().identity.userForAccessToken(token) : undefined;
      if (user) return { kind: 'user', user };
      if (access.who === 'member' && access.anonymous === 'pass') return ANONYMOUS;
      // Open to anyone: only credentials that were sent and are wrong are refused, an Authorization
      // header that holds no bearer token ("Basic ...", "Bearer" alone, an oversized one) among them.
      if (recognising && !token && !headers.authorization?.trim()) return ANONYMOUS;
      if (token) throw new Unauthenticated('The bearer token is invalid, expired or revoked');
      throw new Unauthenticated(
        keys.length ? `Send the ${keys.map((k) => `${k.name} (${k.header})`).join(' or the ')} or a bearer token` : 'Send the access token as Authorization: Bearer <token>',
      );
    },

    async authorize(access, caller, request) {
      const grant = await decide(access, caller, request);
      // A closing or closed account is read (GET), closed and reopened, and nothing else (lib/permissions.ts WHILE_CLOSED).
      if (access.who === 'member' && grant.account && !allowedWhileClosed(request.method, access.permission)) await refuseIfClosed()(grant.account.id);
      return grant;
    },
  };

  async function decide(access: Access, caller: Caller, request: Naming): Promise<Grant> {
      if (access.who === 'admin') {
        if (!isAdmin(caller) && !(access.serviceKey && caller.kind === 'service')) throw new Forbidden('This is for admins only');
        return { caller };
      }
      // Anyone may call; the grant names an admin as one, and everyone else as anonymous.
      if (access.who === 'anyone') return { caller: isAdmin(caller) ? caller : ANONYMOUS };
      if (access.who !== 'member' || caller.kind === 'anonymous') return { caller };
      if (caller.kind === 'service' && !serviceMay(access.permission)) throw serviceMayNot();
      const named = accountNamed(access.account, request);
      // The service key, and the admin key (or an admin user) where the rule takes it, act on any account; the use case finds it or not.
      if (caller.kind !== 'user' || (access.adminKey && isAdmin(caller))) return named ? { caller, account: { id: named } } : { caller };

      const refuse = (role: Role) =>
        new Forbidden(`As ${role === 'admin' ? 'an' : 'a'} ${role} of this account you may not do this (it needs: ${rolesFor(access.permission)})`);
      if (named) {
        const membership = await memberships().get(named, caller.user.id);
        if (membership?.status !== 'active') throw noSuchAccount();
        if (!mayAct(membership, access.permission)) throw refuse(membership.role);
        return { caller, account: { id: named, role: membership.role } };
      }
      // Only "named, else the caller's only account" gets here without an id.
      const mine = (await memberships().ofUser(caller.user.id)).filter((m) => m.status === 'active');
      if (mine.length === 0) return { caller };
      if (mine.length > 1) {
        const where = 'named' in access.account ? access.account.named : 'body';
        throw new InvalidInput(
          'You belong to several accounts: say which one this is for',
          [{ path: `/${where}/accountId`, message: `is required; one of: ${mine.map((m) => m.account_id).join(', ')}` }],
          'account_required',
        );
      }
      const only = mine[0]!;
      if (!allows(access.permission, only.role)) throw refuse(only.role);
      return { caller, account: { id: only.account_id, role: only.role } };
  }
}

const SERVICE_KEY_HEADER = 'x-api-key';
const serviceMayNot = () => new Forbidden(`The internal service key may not do this (it may: ${SERVICE_PERMISSIONS.join(', ')})`);

const missingStore = (): never => {
  throw new Error('This guard holds no membership store: the HTTP stack gives it no route that reads roles');
};

/** The keys a rule takes, each in its own header. */
function keysFor(access: Access, use: () => GuardDeps) {
  const service = (value: () => string | undefined) => ({ header: SERVICE_KEY_HEADER, name: 'API key', value, caller: { kind: 'service' } as const });
  if (recognisesAdmin(access)) {
    const admin = { header: 'x-admin-key', name: 'admin key', value: () => use().key, caller: { kind: 'admin-key' } as const };
    return access.who === 'admin' && access.serviceKey ? [admin, service(() => use().serviceKey)] : [admin];
  }
  if (access.who === 'member' && access.serviceKey) return [service(() => use().key)];
  return [];
}

/** The account id a request names, if it names one; a malformed one is refused like any other invalid input. */
function accountNamed(from: AccountFrom, request: Naming): string | undefined {
  if ('path' in from) return checked(request.pathParams[from.path], `/path/${from.path}`);
  if ('runPath' in from) {
    const account = RUN_ID.exec(request.pathParams[from.runPath] ?? '')?.[1];
    // Not a run id at all: there is no such run, for anyone.
    if (!account) throw new NotFound('No onboarding run with this id');
    return account;
  }
  const source = from.named === 'body' ? request.body : request.query;
  const value = source && typeof source === 'object' ? (source as Record<string, unknown>).accountId : undefined;
  return value === undefined ? undefined : checked(value, `/${from.named}/accountId`);
}

function checked(value: unknown, path: string): string {
  if (typeof value !== 'string' || !ID.test(value)) {
    throw new InvalidInput('The request is invalid', [{ path, message: 'must be an account id' }], 'invalid_request');
  }
  return value;
}

const rolesFor = (permission: Permission) => PERMISSIONS[permission].join(' or ');

/** The same answer for an account that does not exist and one the caller is not in: an id reveals nothing. */
export const noSuchAccount = () => new NotFound('No such account, or not one you belong to', 'account_not_found');
