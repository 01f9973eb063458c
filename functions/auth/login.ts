import { logIn } from '../../lib/auth/log-in.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { identity } from '../../lib/wiring/adapters.ts';
import { authMailer, authSettings } from '../../lib/wiring/auth.ts';
import { rateLimiter } from '../../lib/wiring/stores.ts';

const deps = { identity: identity(), limiter: rateLimiter(), settings: authSettings(), mailer: authMailer() };

export const handler = httpEndpoint(authRoutes.login, async ({ body, clientIp, log }) =>
  json(200, await logIn({ ...deps, log }, { email: body.email, password: body.password, clientIp })),
);
