import { actorOf } from '../../lib/access/caller.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { rowsReader } from '../../lib/http/rows.ts';
import { submitBatch } from '../../lib/onboarding/batches.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { limitSubmitter } from '../../lib/onboarding/submission-limits.ts';
import { agencyGuard } from '../../lib/wiring/guards.ts';
import { submissionLimits } from '../../lib/wiring/onboarding.ts';
import { batches } from '../../lib/wiring/stores.ts';
import { onboardingBatchQueue } from '../../lib/wiring/workflows.ts';

const route = onboardingRoutes.onboardingBatch;
const readRows = rowsReader(route.rows);
const deps = { batches: batches(), queue: onboardingBatchQueue() };
const limits = submissionLimits();

export const handler = httpEndpoint(route, agencyGuard(), async (request) => {
  await limitSubmitter(limits, request.access.caller);
  const batch = await submitBatch(deps, actorOf(request.access.caller), readRows(request.headers['content-type'], request.rawBody));
  return json(202, { ...batch, statusUrl: `${request.apiOrigin}/api/onboarding/batches/${batch.batchId}` });
});
