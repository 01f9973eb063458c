import { signedInUser } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { acceptInvitation } from '../../lib/accounts/team.ts';
import { memberships, invitations } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.acceptInvitation, guard, async ({ access, pathParams }) => {
  return json(200, await acceptInvitation({ memberships, invitations }, signedInUser(access), pathParams.invitationId!));
});
