import { identity } from '../../lib/adapters.ts';
import { currentUser } from '../../lib/auth/current-user.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { bearerToken } from '../../lib/http/credentials.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: identity() };

export const handler = httpEndpoint(authRoutes.me, async ({ headers }) => json(200, await currentUser(deps, bearerToken(headers))));
