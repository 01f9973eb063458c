import { grantedAccount } from '../../lib/access/guard.ts';
import { serviceGuard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { invite } from '../../lib/accounts/team.ts';
import { teamDeps } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(accountRoutes.createInvitation, serviceGuard, async ({ access, body }) => {
  const account = grantedAccount(access);
  const { caller } = access;
  const invitedBy = caller.kind === 'user' ? { kind: 'user' as const, userId: caller.user.id, email: caller.user.email } : { kind: 'service' as const };
  return json(201, await invite(teamDeps, { accountId: account.id, email: body.email, role: body.role ?? 'member', invitedBy, inviterRole: account.role }));
});
