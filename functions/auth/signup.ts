import { authRoutes } from '../../lib/auth/routes.ts';
import { signUp } from '../../lib/auth/sign-up.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { adminIdentity } from '../../lib/wiring/adapters.ts';
import { authMailer, authSettings } from '../../lib/wiring/auth.ts';
import { rateLimiter, verificationTokens } from '../../lib/wiring/stores.ts';

const deps = { identity: adminIdentity(), tokens: verificationTokens(), mailer: authMailer(), limiter: rateLimiter(), settings: authSettings() };

export const handler = httpEndpoint(authRoutes.signup, async ({ body, clientIp, log }) =>
  json(201, await signUp({ ...deps, log }, { email: body.email, password: body.password, metadata: body.metadata, clientIp })),
);
