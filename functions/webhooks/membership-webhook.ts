import { memberships, teamDeps } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { stores as onboardingStores } from '../../lib/onboarding/stores.ts';
import { sfnWorkflow } from '../../lib/onboarding/workflow.ts';
import { receiveMembershipDelivery } from '../../lib/webhooks/receive-membership.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { stateMachineArn, webhookStores } from '../../lib/webhooks/stores.ts';
import { sfn } from '../../lib/workflows/step-functions.ts';

const deps = {
  ...webhookStores,
  memberships,
  team: teamDeps,
  onboarding: { ...onboardingStores, workflow: sfnWorkflow(sfn, stateMachineArn('onboarding')) },
};

export const handler = httpEndpoint(webhookRoutes.membershipWebhook, async (request) => {
  const { outcome } = await receiveMembershipDelivery(
    { ...deps, log: request.log },
    { secret: request.pathParams.secret, headers: request.headers, rawBody: request.rawBody },
  );
  return json(200, { received: true, outcome });
});
