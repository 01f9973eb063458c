import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { identifyCaller } from '../../lib/onboarding/access.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { readRun } from '../../lib/onboarding/start-onboarding.ts';
import { access, onboardingDeps } from '../../lib/onboarding/wiring.ts';

export const handler = httpEndpoint(onboardingRoutes.onboardingRun, async (request) => {
  const caller = await identifyCaller(access, request.headers);
  return httpAnswer(await readRun(onboardingDeps, caller, request.pathParams.runId!), request);
});
