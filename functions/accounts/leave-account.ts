import { grantedAccount, signedInUser } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { removeMember } from '../../lib/accounts/team.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { invitations, memberships } from '../../lib/wiring/stores.ts';

const deps = { memberships: memberships(), invitations: invitations() };

export const handler = httpEndpoint(accountRoutes.leaveAccount, guard(), async ({ access }) => {
  await removeMember(deps, grantedAccount(access).id, signedInUser(access).id);
  return { status: 204 };
});
