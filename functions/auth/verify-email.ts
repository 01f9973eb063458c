import { authRoutes } from '../../lib/auth/routes.ts';
import { verifyEmail } from '../../lib/auth/verify-email.ts';
import { accountStores, adminIdentity, settings, verificationTokens } from '../../lib/auth/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { identity: adminIdentity(), tokens: verificationTokens(), ...accountStores(), settings: settings() };

export const handler = httpEndpoint(authRoutes.verifyEmail, async ({ body }) => json(200, await verifyEmail(deps, body.token)));
