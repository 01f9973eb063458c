import { requireAdmin } from '../../lib/crawler/access.ts';
import { requestRefresh } from '../../lib/crawler/request-refresh.ts';
import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { adminAccess, crawlerDeps, crawlerRefreshWorkflow } from '../../lib/crawler/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const access = adminAccess();
const deps = { ...crawlerDeps(), workflow: crawlerRefreshWorkflow() };

export const handler = httpEndpoint(crawlerRoutes.crawlerRefresh, async (request) => {
  await requireAdmin(access, request.headers);
  const accountId = request.pathParams.accountId!;
  const job = await requestRefresh(deps, accountId, request.body);
  return json(202, {
    success: true,
    accountId,
    ...job,
    summaryUrl: `${request.apiOrigin}/api/crawler/accounts/${encodeURIComponent(accountId)}/summary`,
  });
});
