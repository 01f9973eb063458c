import { accessGuard } from '../../lib/access/guard.ts';
import { identity } from '../../lib/adapters.ts';
import { logOut } from '../../lib/auth/log-out.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { bearerToken } from '../../lib/http/credentials.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: identity() };
// Logout is open to any signed-in user and reads no role in an account: its guard holds no membership
// store, so this bundle carries no DynamoDB client (whose SDK took about half of its cold start).
const guard = accessGuard('none', () => deps, { readsRoles: false });

export const handler = httpEndpoint(authRoutes.logout, guard, async ({ headers }) => json(200, await logOut(deps, bearerToken(headers))));
