// Who is calling, and what the guard granted them: what use cases and handlers
// read of a request's access (the guard, ./guard.ts, decides it).
import type { IdentityUser } from '../identity/identity.ts';
import type { Role } from '../permissions.ts';

export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'user'; user: IdentityUser }
  /** The internal service token (x-api-key): the portal's backend. */
  | { kind: 'service' }
  /** The admin key (x-admin-key): the admin dashboard's backend. */
  | { kind: 'admin-key' };

export interface Grant {
  caller: Caller;
  /** The account the request acts on, when its rule is about one and it names one (or the caller has exactly one). No role for the service key. */
  account?: { id: string; role?: Role };
}

export const ANONYMOUS: Caller = Object.freeze({ kind: 'anonymous' });

/** Users whose app_metadata says this are admins (app_metadata is writable only with the service-role key). */
export const ADMIN_ROLE = 'admin';

/** The admin key, or a signed-in user whose app_metadata says admin. */
export const isAdmin = (caller: Caller): boolean =>
  caller.kind === 'admin-key' || (caller.kind === 'user' && caller.user.appMetadata.role === ADMIN_ROLE);

/** The account a request was granted, for routes whose rule names it in the path (the guard has always set it then). */
export function grantedAccount(grant: Grant): { id: string; role?: Role } {
  if (!grant.account) throw new Error('This route has no account in its access rule');
  return grant.account;
}

/** Who did it, for records: the user's id, or the key's kind. */
export const actorOf = (caller: Caller): string => (caller.kind === 'user' ? caller.user.id : caller.kind);

/** The signed-in user of a request whose rule admits only users. */
export function signedInUser(grant: Grant): IdentityUser {
  if (grant.caller.kind !== 'user') throw new Error('This route admits signed-in users only');
  return grant.caller.user;
}
