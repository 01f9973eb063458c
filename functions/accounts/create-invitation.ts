import { grantedAccount } from '../../lib/access/guard.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { invite } from '../../lib/accounts/team.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { teamDeps } from '../../lib/wiring/accounts.ts';
import { serviceGuard } from '../../lib/wiring/guards.ts';

const team = teamDeps();

export const handler = httpEndpoint(accountRoutes.createInvitation, serviceGuard(), async ({ access, body }) => {
  const account = grantedAccount(access);
  const { caller } = access;
  const invitedBy = caller.kind === 'user' ? { kind: 'user' as const, userId: caller.user.id, email: caller.user.email } : { kind: 'service' as const };
  return json(201, await invite(team, { accountId: account.id, email: body.email, role: body.role ?? 'member', invitedBy, inviterRole: account.role }));
});
