import { crawlerRoutes } from '../../lib/crawler/routes.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { identifyCaller, requireSelfOrService } from '../../lib/onboarding/access.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { enhancedOnboardingDeps } from '../../lib/onboarding/enhanced-wiring.ts';
import { onboardEnhanced } from '../../lib/onboarding/enhanced-onboarding.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { access } from '../../lib/onboarding/wiring.ts';

export const handler = httpEndpoint(crawlerRoutes.enhancedOnboarding, async (request) => {
  const caller = await identifyCaller(access, request.headers);
  const intake = normaliseIntake(request.body);
  requireSelfOrService(caller, intake.email);
  return httpAnswer(await onboardEnhanced(enhancedOnboardingDeps, intake), request);
});
