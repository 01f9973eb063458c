import { userGuard } from '../../lib/access/user-guard.ts';
import { identity } from '../../lib/adapters.ts';
import { logOut } from '../../lib/auth/log-out.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { bearerToken } from '../../lib/http/credentials.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: identity() };

export const handler = httpEndpoint(authRoutes.logout, userGuard, async ({ headers }) => json(200, await logOut(deps, bearerToken(headers))));
