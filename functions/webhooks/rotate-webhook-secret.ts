import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { identifyCaller } from '../../lib/onboarding/access.ts';
import { access } from '../../lib/onboarding/wiring.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { webhookStores } from '../../lib/webhooks/stores.ts';
import { rotateWebhookSecret } from '../../lib/webhooks/webhook-settings.ts';

const callers = access();

export const handler = httpEndpoint(webhookRoutes.rotateWebhookSecret, async (request) => {
  const caller = await identifyCaller(callers, request.headers);
  const settings = await rotateWebhookSecret(webhookStores, caller, request.pathParams.accountId!, request.apiOrigin);
  return json(200, settings, { 'cache-control': 'no-store' });
});
