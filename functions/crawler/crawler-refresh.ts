import { adminGuard } from '../../lib/access/wiring.ts';
import { requestRefresh } from '../../lib/crawler/request-refresh.ts';
import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { crawlerDeps, refreshWorkflow } from '../../lib/crawler/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { ...crawlerDeps, workflow: refreshWorkflow() };

export const handler = httpEndpoint(crawlerRoutes.crawlerRefresh, adminGuard, async (request) => {
  const accountId = request.pathParams.accountId!;
  const job = await requestRefresh(deps, accountId, request.body);
  return json(202, {
    success: true,
    accountId,
    ...job,
    summaryUrl: `${request.apiOrigin}/api/crawler/accounts/${encodeURIComponent(accountId)}/summary`,
  });
});
