import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { identifyCaller, requireSelfOrService } from '../../lib/onboarding/access.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { onboardEnhanced } from '../../lib/onboarding/enhanced-onboarding.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { access, enhancedOnboardingDeps } from '../../lib/onboarding/wiring.ts';

const callers = access();
const deps = enhancedOnboardingDeps();

export const handler = httpEndpoint(crawlerRoutes.enhancedOnboarding, async (request) => {
  const caller = await identifyCaller(callers, request.headers);
  const intake = normaliseIntake(request.body);
  requireSelfOrService(caller, intake.email);
  return httpAnswer(await onboardEnhanced(deps, intake), request);
});
