import { grantedAccount } from '../../lib/access/caller.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { readWebhookSettings } from '../../lib/webhooks/webhook-settings.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { webhookSettingsStores } from '../../lib/wiring/stores.ts';

const deps = webhookSettingsStores();

export const handler = httpEndpoint(webhookRoutes.webhookSettings, guard(), async (request) => {
  const settings = await readWebhookSettings(deps, grantedAccount(request.access).id, request.apiOrigin);
  return json(200, settings, { 'cache-control': 'no-store' });
});
