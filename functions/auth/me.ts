import { signedInUser } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountStore, invitations, memberships } from '../../lib/accounts/wiring.ts';
import { currentUser } from '../../lib/auth/current-user.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { accounts: accountStore, memberships, invitations };

export const handler = httpEndpoint(authRoutes.me, guard, async ({ access }) =>
  json(200, await currentUser(deps, signedInUser(access)), { 'cache-control': 'no-store' }),
);
