import { grantedAccount } from '../../lib/access/caller.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { httpAnswer } from '../../lib/onboarding/answer.ts';
import { onboardingRoutes } from '../../lib/onboarding/routes.ts';
import { readRun } from '../../lib/onboarding/start-onboarding.ts';
import { serviceGuard } from '../../lib/wiring/guards.ts';
import { runViewDeps } from '../../lib/wiring/onboarding.ts';

const deps = runViewDeps();

export const handler = httpEndpoint(onboardingRoutes.onboardingRun, serviceGuard(), async (request) =>
  httpAnswer(await readRun(deps, grantedAccount(request.access).id, request.pathParams.runId!), request),
);
