import { grantedAccount } from '../../lib/access/guard.ts';
import { serviceGuard } from '../../lib/access/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { webhookStores } from '../../lib/webhooks/stores.ts';
import { setSigningKeys } from '../../lib/webhooks/webhook-settings.ts';

export const handler = httpEndpoint(webhookRoutes.setWebhookSigningKeys, serviceGuard, async (request) => {
  const settings = await setSigningKeys(webhookStores, grantedAccount(request.access).id, request.body, request.apiOrigin);
  return json(200, settings, { 'cache-control': 'no-store' });
});
