import { requestPasswordReset } from '../../lib/auth/request-password-reset.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { adminIdentity } from '../../lib/wiring/adapters.ts';
import { authMailer, authSettings } from '../../lib/wiring/auth.ts';
import { rateLimiter } from '../../lib/wiring/stores.ts';

const deps = { identity: adminIdentity(), mailer: authMailer(), limiter: rateLimiter(), settings: authSettings() };

export const handler = httpEndpoint(authRoutes.forgotPassword, async ({ body, clientIp, log }) =>
  json(200, await requestPasswordReset({ ...deps, log }, { email: body.email, clientIp })),
);
