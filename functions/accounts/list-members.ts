import { grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { listMembers } from '../../lib/accounts/team.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { membershipReader } from '../../lib/wiring/stores.ts';

const deps = { memberships: membershipReader() };

export const handler = httpEndpoint(accountRoutes.listMembers, guard(), async ({ access }) =>
  json(200, { members: await listMembers(deps, grantedAccount(access).id) }, { 'cache-control': 'no-store' }),
);
