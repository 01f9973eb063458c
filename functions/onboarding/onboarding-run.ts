import { grantedAccount } from '../../lib/access/guard.ts';
import { serviceGuard } from '../../lib/access/wiring.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { readRun } from '../../lib/onboarding/start-onboarding.ts';
import { onboardingDeps } from '../../lib/onboarding/wiring.ts';

export const handler = httpEndpoint(onboardingRoutes.onboardingRun, serviceGuard, async (request) =>
  httpAnswer(await readRun(onboardingDeps, grantedAccount(request.access).id, request.pathParams.runId!), request),
);
