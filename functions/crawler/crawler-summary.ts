import { adminGuard } from '../../lib/access/wiring.ts';
import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { crawlerSummary } from '../../lib/crawler/summary.ts';
import { crawlerDeps } from '../../lib/crawler/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(crawlerRoutes.crawlerSummary, adminGuard, async (request) => {
  const summary = await crawlerSummary(crawlerDeps, request.pathParams.accountId!);
  return json(200, { success: true, summary });
});
