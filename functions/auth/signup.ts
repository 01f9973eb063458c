import { authRoutes } from '../../lib/auth/routes.ts';
import { signUp } from '../../lib/auth/sign-up.ts';
import { adminIdentity, authMailer, rateLimiter, settings, verificationTokens } from '../../lib/auth/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: adminIdentity(), tokens: verificationTokens(), mailer: authMailer(), limiter: rateLimiter(), settings: settings() };

export const handler = httpEndpoint(authRoutes.signup, async ({ body, clientIp, log }) =>
  json(201, await signUp({ ...deps, log }, { email: body.email, password: body.password, metadata: body.metadata, clientIp })),
);
