import { grantedAccount } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { removeMember } from '../../lib/accounts/team.ts';
import { invitations, memberships } from '../../lib/accounts/wiring.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.removeMember, guard, async ({ access, pathParams }) => {
  await removeMember({ memberships, invitations }, grantedAccount(access).id, pathParams.userId!);
  return { status: 204 };
});
