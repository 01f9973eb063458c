// The access guards of the HTTP functions whose routes need to know the caller,
// one per kind of key a route may take besides a bearer token, so that each
// function's bundle (and so its settings, infra/settings-per-function.mjs)
// holds only the key its routes take. Each is built once per Lambda instance;
// its identity client, membership store and account reader are made on the first request that
// carries credentials, and supabase-js is loaded only when that request
// carries a bearer token (./adapters.ts). The HTTP stack refuses a guard of
// the wrong kind for a route (lib/http/endpoint.ts).
import { permissionGuard } from '../access/permission-guard.ts';
import { adminApiKey, internalApiKey } from '../config.ts';
import type { KeyKind } from '../access/rules.ts';
import { refuseIfClosed } from '../accounts/lifecycle.ts';
import { identity } from './adapters.ts';
import { kept } from './lazy.ts';
import { accountReader, membershipReader } from './stores.ts';

const guardTaking = (takes: KeyKind, key: () => string | undefined, serviceKey?: () => string | undefined) =>
  kept(`guard:${takes}`, () => permissionGuard(takes, () => ({ identity: identity(), memberships: membershipReader(), refuseIfClosed: refuseIfClosed(accountReader()), key: key(), serviceKey: serviceKey?.() })));

/** For routes that take a bearer token only. */
export const guard = () => guardTaking('none', () => undefined);
/** For routes the portal's backend may also call with the internal API key (x-api-key). */
export const serviceGuard = () => guardTaking('internal', internalApiKey);
/** For admin routes: the admin key (x-admin-key), or a signed-in admin user. */
export const adminGuard = () => guardTaking('admin', adminApiKey);
/** For the agency's own routes (batch onboarding): the admin key, the internal API key, or a signed-in admin user. */
export const agencyGuard = () => guardTaking('admin+internal', adminApiKey, internalApiKey);
