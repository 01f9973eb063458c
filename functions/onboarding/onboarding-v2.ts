import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { identifyCaller, requireSelfOrService } from '../../lib/onboarding/access.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { onboard } from '../../lib/onboarding/start-onboarding.ts';
import { access, onboardingDeps } from '../../lib/onboarding/wiring.ts';

const callers = access();
const deps = onboardingDeps();

export const handler = httpEndpoint(onboardingRoutes.onboardingV2, async (request) => {
  const caller = await identifyCaller(callers, request.headers);
  const intake = normaliseIntake(request.body);
  requireSelfOrService(caller, intake.email);
  return httpAnswer(await onboard(deps, intake), request);
});
