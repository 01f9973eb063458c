import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { identifyCaller } from '../../lib/onboarding/access.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { readRun } from '../../lib/onboarding/start-onboarding.ts';
import { access, onboardingDeps } from '../../lib/onboarding/wiring.ts';

const callers = access();
const deps = onboardingDeps();

export const handler = httpEndpoint(onboardingRoutes.onboardingRun, async (request) => {
  const caller = await identifyCaller(callers, request.headers);
  return httpAnswer(await readRun(deps, caller, request.pathParams.runId!), request);
});
