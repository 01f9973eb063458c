import { requireAdmin } from '../../lib/crawler/access.ts';
import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { crawlerSummary } from '../../lib/crawler/summary.ts';
import { adminAccess, crawlerDeps } from '../../lib/crawler/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const access = adminAccess();
const deps = crawlerDeps();

export const handler = httpEndpoint(crawlerRoutes.crawlerSummary, async (request) => {
  await requireAdmin(access, request.headers);
  const summary = await crawlerSummary(deps, request.pathParams.accountId!);
  return json(200, { success: true, summary });
});
