import { onboardEnhanced } from '../../lib/enhanced-onboarding/enhanced-onboarding.ts';
import { enhancedOnboardingRoutes } from '../../lib/enhanced-onboarding/routes.ts';
import { enhancedOnboardingDeps } from '../../lib/enhanced-onboarding/wiring.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { identifyCaller, requireSelfOrService } from '../../lib/onboarding/access.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { access } from '../../lib/onboarding/wiring.ts';

export const handler = httpEndpoint(enhancedOnboardingRoutes.enhancedOnboarding, async (request) => {
  const caller = await identifyCaller(access, request.headers);
  const intake = normaliseIntake(request.body);
  requireSelfOrService(caller, intake.email);
  return httpAnswer(await onboardEnhanced(enhancedOnboardingDeps, intake), request);
});
