// The access rules of the routes, in the words of the route catalog (lib/http/route.ts's
// RouteSpec.access): what the guard (./guard.ts) enforces and the docs show.
import type { Permission, ServicePermission } from '../permissions.ts';

/** An id as a path names it: letters, digits and hyphens, never longer than a key may be (lib/http/route.ts's idParam). */
export const ID_PATTERN = '^[A-Za-z0-9-]{1,100}$';

/**
 * Who may call a route: every route says, and the HTTP stack enforces it
 * (./permission-guard.ts) before the body is validated or the handler runs. A
 * route whose rule needs to know the caller cannot be built without the guard
 * (lib/http/endpoint.ts), so a rule cannot silently go unenforced.
 */
export type Access =
  /**
   * Anyone; the handler itself may still check a token it is given (reset-password's recovery token).
   * With `recognise: 'admin'`, an admin who presents credentials (the admin key, or a signed-in admin
   * user) is known as one: the handler's grant holds the admin, or an anonymous caller for everyone
   * else (a signed-in user who is not an admin included), so it may show admins more (/status).
   * Credentials that are sent but wrong are refused (401), as on every route that takes them.
   */
  | { who: 'anyone'; recognise?: 'admin' }
  /** A per-account secret in the path, looked up by the handler: any wrong secret is the same 404. */
  | { who: 'path-secret' }
  /** A provider's signature over the raw body, verified by the handler. */
  | { who: 'signed' }
  /** Any signed-in user: Authorization: Bearer <identity-provider access token>. */
  | { who: 'user' }
  /**
   * The admin key (x-admin-key), or a signed-in user whose app_metadata says role "admin"; with
   * `serviceKey`, the internal service token (x-api-key) too: the agency's own systems.
   */
  | { who: 'admin'; serviceKey?: true }
  /** A signed-in user whose role in the account allows the permission (lib/permissions.ts). */
  | ({
      who: 'member';
      account: AccountFrom;
      /** A caller without a valid bearer token is passed on as anonymous (the checkout redirect sends them to sign up). */
      anonymous?: 'pass';
      /** The admin key (x-admin-key), or a signed-in admin user, may also call it, for any account (closing or reopening one). */
      adminKey?: true;
    } & (
      | {
          permission: ServicePermission;
          /** The internal service token (x-api-key) may also call it, for any account: only for what the service may do (SERVICE_PERMISSIONS). */
          serviceKey?: true;
        }
      | { permission: Exclude<Permission, ServicePermission>; serviceKey?: never }
    ));

/** Where a request names the account it acts on. */
export type AccountFrom =
  /** A path parameter holding the account id. */
  | { path: string }
  /** A path parameter holding a run id, which begins with its account's id. */
  | { runPath: string }
  /**
   * `accountId` in the body or the query; when absent, the caller's only
   * account. A caller with none gets through without one (the use case
   * creates their first); with several, 400 names the choice.
   */
  | { named: 'body' | 'query' };

/** Which of the service's keys a rule takes besides a bearer token: the internal API key, the admin key, both, or neither. */
export type KeyKind = 'none' | 'internal' | 'admin' | 'admin+internal';
export const keyKindOf = (access: Access): KeyKind =>
  access.who === 'admin' && access.serviceKey
    ? 'admin+internal'
    : recognisesAdmin(access)
      ? 'admin'
      : access.who === 'member' && access.serviceKey
        ? 'internal'
        : 'none';

/** Whether the rule tells admins apart: admin routes, and public ones that recognise them. */
export const recognisesAdmin = (access: Access): boolean =>
  access.who === 'admin' || (access.who === 'anyone' && access.recognise === 'admin') || (access.who === 'member' && access.adminKey === true);

/** Whether the HTTP stack must know the caller (and so needs the guard) to enforce the rule. */
export const needsCaller = (access: Access): boolean =>
  access.who === 'user' || access.who === 'admin' || access.who === 'member' || recognisesAdmin(access);
