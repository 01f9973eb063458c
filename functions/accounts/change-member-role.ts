import { grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { changeRole } from '../../lib/accounts/team.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { invitations, memberships } from '../../lib/wiring/stores.ts';

const deps = { memberships: memberships(), invitations: invitations() };

export const handler = httpEndpoint(accountRoutes.changeMemberRole, guard(), async ({ access, pathParams, body }) =>
  json(200, await changeRole(deps, grantedAccount(access).id, pathParams.userId!, body.role)),
);
