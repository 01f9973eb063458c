import { grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { removeMember } from '../../lib/accounts/team.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { invitations, memberships } from '../../lib/wiring/stores.ts';

const deps = { memberships: memberships(), invitations: invitations() };

export const handler = httpEndpoint(accountRoutes.removeMember, guard(), async ({ access, pathParams }) => {
  await removeMember(deps, grantedAccount(access).id, pathParams.userId!);
  return { status: 204 };
});
