import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { crawlerSummary } from '../../lib/crawler/summary.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { adminGuard } from '../../lib/wiring/guards.ts';
import { accountReader, crawlRecords } from '../../lib/wiring/stores.ts';

const deps = { ...crawlRecords(), accounts: accountReader() };

export const handler = httpEndpoint(crawlerRoutes.crawlerSummary, adminGuard(), async (request) => {
  const summary = await crawlerSummary(deps, request.pathParams.accountId!);
  return json(200, { success: true, summary });
});
