import { actorOf, grantedAccount } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { revokeInvitation } from '../../lib/accounts/team.ts';
import { teamDeps } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.revokeInvitation, guard, async ({ access, pathParams }) =>
  json(200, await revokeInvitation(teamDeps, grantedAccount(access).id, pathParams.invitationId!, actorOf(access.caller))),
);
