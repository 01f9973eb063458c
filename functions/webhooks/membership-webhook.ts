import { memberRecordsCopying } from '../../lib/config.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { receiveMembershipDelivery } from '../../lib/webhooks/receive-membership.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { teamDeps } from '../../lib/wiring/accounts.ts';
import { membershipReader, onboardingStores, webhookStores } from '../../lib/wiring/stores.ts';
import { onboardingWorkflow } from '../../lib/wiring/workflows.ts';

const deps = {
  ...webhookStores(),
  memberships: membershipReader(),
  team: teamDeps(),
  onboarding: { ...onboardingStores(), workflow: onboardingWorkflow() },
  copyingMemberRecords: memberRecordsCopying(),
};

export const handler = httpEndpoint(webhookRoutes.membershipWebhook, async (request) => {
  const { outcome } = await receiveMembershipDelivery(
    { ...deps, log: request.log },
    { secret: request.pathParams.secret, headers: request.headers, rawBody: request.rawBody, readBody: request.readBody },
  );
  return json(200, { received: true, outcome });
});
