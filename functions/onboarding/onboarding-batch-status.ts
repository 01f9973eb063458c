import { agencyGuard } from '../../lib/access/wiring.ts';
import { vendorRates } from '../../lib/config.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { batchView } from '../../lib/onboarding/batches.ts';
import { INTEGRATIONS } from '../../lib/onboarding/outcomes.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { stores } from '../../lib/onboarding/stores.ts';
import { batchStore } from '../../lib/onboarding/wiring.ts';
import { integrations } from '../../lib/provisioning/registry.ts';

const deps = { batches: batchStore, runs: stores.runs, integrations, workflow: INTEGRATIONS, rates: vendorRates() };

export const handler = httpEndpoint(onboardingRoutes.onboardingBatchStatus, agencyGuard, async (request) =>
  json(200, await batchView(deps, request.pathParams.batchId!)),
);
