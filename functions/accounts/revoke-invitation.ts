import { actorOf, grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { revokeInvitation } from '../../lib/accounts/team.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { invitations } from '../../lib/wiring/stores.ts';

const deps = { invitations: invitations() };

export const handler = httpEndpoint(accountRoutes.revokeInvitation, guard(), async ({ access, pathParams }) =>
  json(200, await revokeInvitation(deps, grantedAccount(access).id, pathParams.invitationId!, actorOf(access.caller))),
);
