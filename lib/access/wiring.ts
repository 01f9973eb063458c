// The access guards of the HTTP functions whose routes need to know the caller,
// one per kind of key a route may take besides a bearer token, so that each
// function's bundle (and so its settings, infra/settings-per-function.mjs)
// holds only the key its routes take. Each is built once per Lambda instance;
// its identity client and membership store are made on the first request that
// carries credentials, supabase-js is loaded only when that request carries a
// bearer token, and the membership store (with the DynamoDB client) only when
// a route's rule asks for the caller's role (../adapters.ts, onFirstCall): a
// route open to any signed-in user, as logout, never loads it. The HTTP stack
// refuses a guard of the wrong kind for a route (lib/http/endpoint.ts).
import type { MembershipStore } from '../accounts/memberships.ts';
import { identity, onFirstCall } from '../adapters.ts';
import type { KeyKind } from '../http/route.ts';
import { adminApiKey, internalApiKey } from '../config.ts';
import { accessGuard } from './guard.ts';

const memberships = () =>
  onFirstCall<Pick<MembershipStore, 'get' | 'ofUser'>>(async () => {
    const [{ dynamodbMemberships }, { db, tables }] = await Promise.all([import('../accounts/dynamodb-memberships.ts'), import('../store/dynamodb.ts')]);
    return dynamodbMemberships({ db, tables });
  });

const guardTaking = (takes: KeyKind, key: () => string | undefined) =>
  accessGuard(takes, () => ({ identity: identity(), memberships: memberships(), key: key() }));

/** For routes that take a bearer token only. */
export const guard = /* @__PURE__ */ guardTaking('none', () => undefined);
/** For routes the portal's backend may also call with the internal API key (x-api-key). */
export const serviceGuard = /* @__PURE__ */ guardTaking('internal', internalApiKey);
/** For admin routes: the admin key (x-admin-key), or a signed-in admin user. */
export const adminGuard = /* @__PURE__ */ guardTaking('admin', adminApiKey);
