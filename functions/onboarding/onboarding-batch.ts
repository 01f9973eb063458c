import { agencyGuard } from '../../lib/access/wiring.ts';
import { actorOf } from '../../lib/access/guard.ts';
import { onboardingBatchQueue } from '../../lib/adapters.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { rowsReader } from '../../lib/http/rows.ts';
import { submitBatch } from '../../lib/onboarding/batches.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { limitSubmitter } from '../../lib/onboarding/submission-limits.ts';
import { batchStore, submissionLimits } from '../../lib/onboarding/wiring.ts';

const route = onboardingRoutes.onboardingBatch;
const readRows = rowsReader(route.rows);
const deps = { batches: batchStore, queue: onboardingBatchQueue() };

export const handler = httpEndpoint(route, agencyGuard, async (request) => {
  await limitSubmitter(submissionLimits, request.access.caller);
  const batch = await submitBatch(deps, actorOf(request.access.caller), readRows(request.headers['content-type'], request.rawBody));
  return json(202, { ...batch, statusUrl: `${request.apiOrigin}/api/onboarding/batches/${batch.batchId}` });
});
