import { requestPasswordReset } from '../../lib/auth/request-password-reset.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { adminIdentity, authMailer, rateLimiter, settings } from '../../lib/auth/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: adminIdentity(), mailer: authMailer(), limiter: rateLimiter(), settings: settings() };

export const handler = httpEndpoint(authRoutes.forgotPassword, async ({ body, clientIp, log }) =>
  json(200, await requestPasswordReset({ ...deps, log }, { email: body.email, clientIp })),
);
