import { serviceGuard } from '../../lib/access/wiring.ts';
import { onboardEnhanced } from '../../lib/enhanced-onboarding/enhanced-onboarding.ts';
import { enhancedOnboardingRoutes } from '../../lib/enhanced-onboarding/routes.ts';
import { enhancedOnboardingDeps } from '../../lib/enhanced-onboarding/wiring.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { withOnboardingAccount } from '../../lib/onboarding/onboarding-account.ts';
import { limitAccount, limitSubmitter } from '../../lib/onboarding/submission-limits.ts';
import { accountDeps, submissionLimits } from '../../lib/onboarding/wiring.ts';

export const handler = httpEndpoint(enhancedOnboardingRoutes.enhancedOnboarding, serviceGuard, async (request) => {
  const intake = normaliseIntake(request.body);
  await limitSubmitter(submissionLimits, request.access.caller);
  return withOnboardingAccount(accountDeps, request.access, intake, async (accountId) => {
    await limitAccount(submissionLimits, accountId, 'enhanced');
    return httpAnswer(await onboardEnhanced(enhancedOnboardingDeps, accountId, intake, request.deadline), request);
  });
});
