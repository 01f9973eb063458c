import { logOut } from '../../lib/auth/log-out.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { bearerToken } from '../../lib/access/credentials.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { identity } from '../../lib/wiring/adapters.ts';
import { signedInGuard } from '../../lib/wiring/signed-in-guard.ts';

const deps = { identity: identity() };

export const handler = httpEndpoint(authRoutes.logout, signedInGuard(), async ({ headers }) => json(200, await logOut(deps, bearerToken(headers))));
