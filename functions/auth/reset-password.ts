import { resetPassword } from '../../lib/auth/reset-password.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { bearerToken } from '../../lib/access/credentials.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { adminIdentity } from '../../lib/wiring/adapters.ts';
import { authSettings } from '../../lib/wiring/auth.ts';
import { rateLimiter } from '../../lib/wiring/stores.ts';

const deps = { identity: adminIdentity(), limiter: rateLimiter(), settings: authSettings() };

// The front end takes access_token from the reset link's URL hash and sends it in the body or as a bearer token.
export const handler = httpEndpoint(authRoutes.resetPassword, async ({ body, headers, clientIp, log }) =>
  json(200, await resetPassword({ ...deps, log }, { password: body.password, token: body.token ?? bearerToken(headers), clientIp })),
);
