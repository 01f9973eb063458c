import { serviceGuard } from '../../lib/access/wiring.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { withOnboardingAccount } from '../../lib/onboarding/onboarding-account.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { onboard } from '../../lib/onboarding/start-onboarding.ts';
import { limitAccount, limitSubmitter } from '../../lib/onboarding/submission-limits.ts';
import { accountDeps, onboardingDeps, submissionLimits } from '../../lib/onboarding/wiring.ts';

export const handler = httpEndpoint(onboardingRoutes.onboardingV2, serviceGuard, async (request) => {
  const intake = normaliseIntake(request.body);
  await limitSubmitter(submissionLimits, request.access.caller);
  return withOnboardingAccount(accountDeps, request.access, intake, async (accountId) => {
    await limitAccount(submissionLimits, accountId, 'onboarding');
    return httpAnswer(await onboard(onboardingDeps, accountId, intake, request.deadline), request);
  });
});
