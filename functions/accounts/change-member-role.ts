import { grantedAccount } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { changeRole } from '../../lib/accounts/team.ts';
import { invitations, memberships } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.changeMemberRole, guard, async ({ access, pathParams, body }) =>
  json(200, await changeRole({ memberships, invitations }, grantedAccount(access).id, pathParams.userId!, body.role)),
);
