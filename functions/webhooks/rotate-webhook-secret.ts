import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { identifyCaller } from '../../lib/onboarding/access.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { webhookStores } from '../../lib/webhooks/stores.ts';
import { rotateWebhookSecret } from '../../lib/webhooks/webhook-settings.ts';
import { access } from '../../lib/webhooks/wiring.ts';

export const handler = httpEndpoint(webhookRoutes.rotateWebhookSecret, async (request) => {
  const caller = await identifyCaller(access, request.headers);
  const settings = await rotateWebhookSecret(webhookStores, caller, request.pathParams.accountId!, request.apiOrigin);
  return json(200, settings, { 'cache-control': 'no-store' });
});
