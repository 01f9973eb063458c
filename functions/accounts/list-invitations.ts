import { grantedAccount } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { listInvitations } from '../../lib/accounts/team.ts';
import { teamDeps } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.listInvitations, guard, async ({ access }) =>
  json(200, { invitations: await listInvitations(teamDeps, grantedAccount(access).id) }, { 'cache-control': 'no-store' }),
);
