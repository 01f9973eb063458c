// The guard of routes open to any signed-in user that read no role in an
// account (logout). It holds no membership store, and this module imports none
// (guards.ts does): a store's module would put the DynamoDB client in the bundle.
import { permissionGuard } from '../access/permission-guard.ts';
import { identity } from './adapters.ts';
import { kept } from './lazy.ts';

export const signedInGuard = () => kept('guard:signed-in', () => permissionGuard('none', () => ({ identity: identity() }), { readsRoles: false }));
