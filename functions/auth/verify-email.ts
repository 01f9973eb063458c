import { authRoutes } from '../../lib/auth/routes.ts';
import { verifyEmail } from '../../lib/auth/verify-email.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { adminIdentity } from '../../lib/wiring/adapters.ts';
import { authSettings } from '../../lib/wiring/auth.ts';
import { accounts, memberships, slugs, verificationTokens } from '../../lib/wiring/stores.ts';

const deps = { identity: adminIdentity(), tokens: verificationTokens(), accounts: accounts(), memberships: memberships(), slugs: slugs(), settings: authSettings() };

export const handler = httpEndpoint(authRoutes.verifyEmail, async ({ body }) => json(200, await verifyEmail(deps, body.token)));
