import { onboardEnhanced } from '../../lib/enhanced-onboarding/enhanced-onboarding.ts';
import { enhancedOnboardingRoutes } from '../../lib/enhanced-onboarding/routes.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { ENHANCED_WORKFLOW } from '../../lib/onboarding/outcomes.ts';
import { withOnboardingAccount } from '../../lib/onboarding/onboarding-account.ts';
import { limitAccount, limitSubmitter } from '../../lib/onboarding/submission-limits.ts';
import { serviceGuard } from '../../lib/wiring/guards.ts';
import { accountDeps, enhancedOnboardingDeps, submissionLimits } from '../../lib/wiring/onboarding.ts';

const deps = enhancedOnboardingDeps();
const accounts = accountDeps();
const limits = submissionLimits();

export const handler = httpEndpoint(enhancedOnboardingRoutes.enhancedOnboarding, serviceGuard(), async (request) => {
  const intake = normaliseIntake(request.body);
  await limitSubmitter(limits, request.access.caller);
  return withOnboardingAccount(
    accounts,
    request.access,
    intake,
    async (accountId) => {
      await limitAccount(limits, accountId, 'enhanced');
      return httpAnswer(await onboardEnhanced(deps, accountId, intake, request.deadline), request);
    },
    ENHANCED_WORKFLOW,
  );
});
