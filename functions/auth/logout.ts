import { guard } from '../../lib/access/wiring.ts';
import { logOut } from '../../lib/auth/log-out.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { identityProvider } from '../../lib/auth/wiring.ts';
import { bearerToken } from '../../lib/http/credentials.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: identityProvider() };

export const handler = httpEndpoint(authRoutes.logout, guard, async ({ headers }) => json(200, await logOut(deps, bearerToken(headers))));
