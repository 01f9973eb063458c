// What the HTTP stack asks of the access guard (lib/access/access-guard.ts implements
// it): who is calling, and what they may do on the account the request names.
// Declared here, beside the endpoint factory that calls it, so that the HTTP
// stack does not depend on how access is decided.
import type { IdentityUser } from '../identity/identity.ts';
import type { Role } from '../permissions.ts';
import type { Access, KeyKind } from './route.ts';

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

/** What authorize reads from the request: the parts that may name an account. */
export interface Naming {
  /** The route's method: a closed account takes reads (GET) only. */
  method: string;
  pathParams: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  body: unknown;
}

export interface Guard {
  /** The key the routes it guards take (keyKindOf their rule): a function holds only that key among its settings. */
  readonly takes: KeyKind;
  /**
   * Whether it holds the membership store a rule reading the caller's role in
   * an account (who: 'member') needs; a guard without it keeps the store, and
   * the DynamoDB client, out of a function whose routes read no role.
   */
  readonly readsRoles: boolean;
  authenticate(access: Access, headers: Record<string, string | undefined>): Promise<Caller>;
  authorize(access: Access, caller: Caller, request: Naming): Promise<Grant>;
}

export const ANONYMOUS: Caller = Object.freeze({ kind: 'anonymous' });
