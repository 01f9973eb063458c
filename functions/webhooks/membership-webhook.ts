import { memberships, teamDeps } from '../../lib/accounts/wiring.ts';
import { onboardingWorkflow } from '../../lib/adapters.ts';
import { memberRecordsCopying } from '../../lib/config.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { stores as onboardingStores } from '../../lib/onboarding/stores.ts';
import { receiveMembershipDelivery } from '../../lib/webhooks/receive-membership.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { webhookStores } from '../../lib/webhooks/stores.ts';

const deps = {
  ...webhookStores,
  memberships,
  team: teamDeps,
  onboarding: { ...onboardingStores, workflow: onboardingWorkflow() },
  copyingMemberRecords: memberRecordsCopying(),
};

export const handler = httpEndpoint(webhookRoutes.membershipWebhook, async (request) => {
  const { outcome } = await receiveMembershipDelivery(
    { ...deps, log: request.log },
    { secret: request.pathParams.secret, headers: request.headers, rawBody: request.rawBody, readBody: request.readBody },
  );
  return json(200, { received: true, outcome });
});
