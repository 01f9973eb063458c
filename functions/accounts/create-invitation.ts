import { grantedAccount, signedInUser } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { invite } from '../../lib/accounts/team.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { teamDeps } from '../../lib/wiring/accounts.ts';
import { guard } from '../../lib/wiring/guards.ts';

const team = teamDeps();

export const handler = httpEndpoint(accountRoutes.createInvitation, guard(), async ({ access, body }) => {
  const account = grantedAccount(access);
  const user = signedInUser(access);
  const invitedBy = { kind: 'user' as const, userId: user.id, email: user.email };
  return json(201, await invite(team, { accountId: account.id, email: body.email, role: body.role ?? 'member', invitedBy, inviterRole: account.role }));
});
