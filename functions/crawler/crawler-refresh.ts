import { requestRefresh } from '../../lib/crawler/request-refresh.ts';
import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { adminGuard } from '../../lib/wiring/guards.ts';
import { accountReader, crawlRecords } from '../../lib/wiring/stores.ts';
import { crawlerRefreshWorkflow } from '../../lib/wiring/workflows.ts';

const deps = { ...crawlRecords(), accounts: accountReader(), workflow: crawlerRefreshWorkflow() };

export const handler = httpEndpoint(crawlerRoutes.crawlerRefresh, adminGuard(), async (request) => {
  const accountId = request.pathParams.accountId!;
  const job = await requestRefresh(deps, accountId, request.body);
  return json(202, {
    success: true,
    accountId,
    ...job,
    summaryUrl: `${request.apiOrigin}/api/crawler/accounts/${encodeURIComponent(accountId)}/summary`,
  });
});
