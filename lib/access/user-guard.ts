// The guard for routes open to any signed-in user whose rule reads no role in
// an account (who: 'user', as logout): it holds the identity provider and no
// membership store. A function using it alone bundles no DynamoDB client, whose
// SDK code took about 24 ms of logout's cold start; the guards of wiring.ts
// bring the store's module with them, so this one lives apart. The HTTP stack
// refuses it for a route that reads roles (lib/http/endpoint.ts).
import { identity } from '../adapters.ts';
import { accessGuard } from './guard.ts';

export const userGuard = /* @__PURE__ */ accessGuard('none', () => ({ identity: identity() }), { readsRoles: false });
