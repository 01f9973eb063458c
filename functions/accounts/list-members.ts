import { grantedAccount } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { listMembers } from '../../lib/accounts/team.ts';
import { memberships } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.listMembers, guard, async ({ access }) =>
  json(200, { members: await listMembers({ memberships }, grantedAccount(access).id) }, { 'cache-control': 'no-store' }),
);
