// The port the HTTP stack (lib/http/endpoint.ts) enforces a route's access rule
// through: who is calling, and what they may do on the account the request
// names. ./permission-guard.ts implements it.
import type { Caller, Grant } from './caller.ts';
import type { Access, KeyKind } from './rules.ts';

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
