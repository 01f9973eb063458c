import { authRoutes } from '../../lib/auth/routes.ts';
import { verifyEmail } from '../../lib/auth/verify-email.ts';
import { accountStores, identityProvider, settings, verificationTokens } from '../../lib/auth/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: identityProvider(), tokens: verificationTokens(), ...accountStores(), settings };

export const handler = httpEndpoint(authRoutes.verifyEmail, async ({ body }) => json(200, await verifyEmail(deps, body.token)));
