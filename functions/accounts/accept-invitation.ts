import { signedInUser } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { acceptInvitation } from '../../lib/accounts/team.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { accountReader, invitations, memberships } from '../../lib/wiring/stores.ts';

const deps = { accounts: accountReader(), memberships: memberships(), invitations: invitations() };

export const handler = httpEndpoint(accountRoutes.acceptInvitation, guard(), async ({ access, pathParams }) => {
  return json(200, await acceptInvitation(deps, signedInUser(access), pathParams.invitationId!));
});
