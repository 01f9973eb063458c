import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { normaliseIntake } from '../../lib/onboarding/intake.ts';
import { withOnboardingAccount } from '../../lib/onboarding/onboarding-account.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { onboard } from '../../lib/onboarding/start-onboarding.ts';
import { limitAccount, limitSubmitter } from '../../lib/onboarding/submission-limits.ts';
import { serviceGuard } from '../../lib/wiring/guards.ts';
import { accountDeps, onboardingDeps, submissionLimits } from '../../lib/wiring/onboarding.ts';

const deps = onboardingDeps();
const accounts = accountDeps();
const limits = submissionLimits();

export const handler = httpEndpoint(onboardingRoutes.onboardingV2, serviceGuard(), async (request) => {
  const intake = normaliseIntake(request.body);
  await limitSubmitter(limits, request.access.caller);
  return withOnboardingAccount(accounts, request.access, intake, async (accountId) => {
    await limitAccount(limits, accountId, 'onboarding');
    return httpAnswer(await onboard(deps, accountId, intake, request.deadline), request);
  });
});
