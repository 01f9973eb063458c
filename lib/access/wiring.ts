// The access guards of the HTTP functions whose routes need to know the caller,
// one per kind of key a route may take besides a bearer token, so that each
// function's bundle (and so its settings, infra/settings-per-function.mjs)
// holds only the key its routes take. Each is built once per Lambda instance;
// its identity client and membership store are made on the first request that
// carries credentials, and supabase-js is loaded only when that request
// carries a bearer token (../adapters.ts). The HTTP stack refuses a guard of
// the wrong kind for a route (lib/http/endpoint.ts).
import { dynamodbMemberships } from '../accounts/dynamodb-memberships.ts';
import { identity } from '../adapters.ts';
import type { KeyKind } from '../http/route.ts';
import { adminApiKey, internalApiKey } from '../config.ts';
import { db, tables } from '../store/dynamodb.ts';
import { accessGuard } from './guard.ts';

const guardTaking = (takes: KeyKind, key: () => string | undefined, serviceKey?: () => string | undefined) =>
  accessGuard(takes, () => ({ identity: identity(), memberships: dynamodbMemberships({ db, tables }), key: key(), serviceKey: serviceKey?.() }));

/** For routes that take a bearer token only. */
export const guard = /* @__PURE__ */ guardTaking('none', () => undefined);
/** For routes the portal's backend may also call with the internal API key (x-api-key). */
export const serviceGuard = /* @__PURE__ */ guardTaking('internal', internalApiKey);
/** For admin routes: the admin key (x-admin-key), or a signed-in admin user. */
export const adminGuard = /* @__PURE__ */ guardTaking('admin', adminApiKey);
/** For the agency's own routes (batch onboarding): the admin key, the internal API key, or a signed-in admin user. */
export const agencyGuard = /* @__PURE__ */ guardTaking('admin+internal', adminApiKey, internalApiKey);
