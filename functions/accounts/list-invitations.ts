import { grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { listInvitations } from '../../lib/accounts/team.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { invitationReader } from '../../lib/wiring/stores.ts';

const deps = { invitations: invitationReader() };

export const handler = httpEndpoint(accountRoutes.listInvitations, guard(), async ({ access }) =>
  json(200, { invitations: await listInvitations(deps, grantedAccount(access).id) }, { 'cache-control': 'no-store' }),
);
