import { grantedAccount } from '../../lib/access/guard.ts';
import { serviceGuard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { listInvitations } from '../../lib/accounts/team.ts';
import { invitations } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.listInvitations, serviceGuard, async ({ access }) =>
  json(200, { invitations: await listInvitations({ invitations }, grantedAccount(access).id) }, { 'cache-control': 'no-store' }),
);
