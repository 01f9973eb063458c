import { logIn } from '../../lib/auth/log-in.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { identity, rateLimiter, settings } from '../../lib/auth/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: identity(), limiter: rateLimiter(), settings: settings() };

export const handler = httpEndpoint(authRoutes.login, async ({ body, clientIp }) =>
  json(200, await logIn(deps, { email: body.email, password: body.password, clientIp })),
);
