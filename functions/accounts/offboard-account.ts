import { actorOf, grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { requestOffboarding } from '../../lib/offboarding/offboard.ts';
import { adminGuard } from '../../lib/wiring/guards.ts';
import { offboardingDeps } from '../../lib/wiring/offboarding.ts';

const deps = offboardingDeps();

export const handler = httpEndpoint(accountRoutes.offboardAccount, adminGuard(), async (request) => {
  const answer = await requestOffboarding(deps, grantedAccount(request.access).id, { reason: request.body.reason, by: actorOf(request.access.caller) });
  const body = {
    accountId: answer.accountId,
    status: answer.status,
    notBefore: answer.notBefore,
    executionId: answer.runId,
    statusUrl: `${request.apiOrigin}/api/onboarding/runs/${answer.runId}`,
  };
  return json(answer.status === 'closed' ? 200 : 202, body);
});
