import { signedInUser } from '../../lib/access/caller.ts';
import { currentUser } from '../../lib/auth/current-user.ts';
import { authRoutes } from '../../lib/auth/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { accountReader, invitationReader, membershipReader } from '../../lib/wiring/stores.ts';

const deps = { accounts: accountReader(), memberships: membershipReader(), invitations: invitationReader() };

export const handler = httpEndpoint(authRoutes.me, guard(), async ({ access }) =>
  json(200, await currentUser(deps, signedInUser(access)), { 'cache-control': 'no-store' }),
);
