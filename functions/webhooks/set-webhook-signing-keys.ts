import { grantedAccount } from '../../lib/access/caller.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { setSigningKeys } from '../../lib/webhooks/webhook-settings.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { webhookSettingsStores } from '../../lib/wiring/stores.ts';

const deps = webhookSettingsStores();

export const handler = httpEndpoint(webhookRoutes.setWebhookSigningKeys, guard(), async (request) => {
  const settings = await setSigningKeys(deps, grantedAccount(request.access).id, request.body, request.apiOrigin);
  return json(200, settings, { 'cache-control': 'no-store' });
});
