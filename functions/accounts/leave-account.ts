import { grantedAccount, signedInUser } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { removeMember } from '../../lib/accounts/team.ts';
import { invitations, memberships } from '../../lib/accounts/wiring.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.leaveAccount, guard, async ({ access }) => {
  await removeMember({ memberships, invitations }, grantedAccount(access).id, signedInUser(access).id);
  return { status: 204 };
});
