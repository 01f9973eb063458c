import { actorOf, grantedAccount } from '../../lib/access/guard.ts';
import { serviceGuard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { revokeInvitation } from '../../lib/accounts/team.ts';
import { invitations } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.revokeInvitation, serviceGuard, async ({ access, pathParams }) =>
  json(200, await revokeInvitation({ invitations }, grantedAccount(access).id, pathParams.invitationId!, actorOf(access.caller))),
);
