import { actorOf, grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { reopenAccount } from '../../lib/offboarding/reopen.ts';
import { adminGuard } from '../../lib/wiring/guards.ts';
import { reopenDeps } from '../../lib/wiring/offboarding.ts';

const deps = reopenDeps();

export const handler = httpEndpoint(accountRoutes.reopenAccount, adminGuard(), async (request) => {
  const accountId = grantedAccount(request.access).id;
  const { status, run } = await reopenAccount(deps, accountId, actorOf(request.access.caller));
  if (!run) return json(200, { accountId, status });
  return json(202, { accountId, status, executionId: run.runId, statusUrl: `${request.apiOrigin}/api/onboarding/runs/${run.runId}` });
});
