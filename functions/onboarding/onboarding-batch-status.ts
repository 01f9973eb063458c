import { vendorRates } from '../../lib/config.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { batchView } from '../../lib/onboarding/batches.ts';
import { INTEGRATIONS } from '../../lib/onboarding/outcomes.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { integrations } from '../../lib/provisioning/registry.ts';
import { agencyGuard } from '../../lib/wiring/guards.ts';
import { batches, runs } from '../../lib/wiring/stores.ts';

const deps = { batches: batches(), runs: runs(), integrations, workflow: INTEGRATIONS, rates: vendorRates() };

export const handler = httpEndpoint(onboardingRoutes.onboardingBatchStatus, agencyGuard(), async (request) =>
  json(200, await batchView(deps, request.pathParams.batchId!)),
);
