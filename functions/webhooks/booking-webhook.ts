import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { receiveBookingDelivery } from '../../lib/webhooks/receive-booking.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { accountReader, inboundWebhooks } from '../../lib/wiring/stores.ts';
import { bookingQueue } from '../../lib/wiring/workflows.ts';

const deps = { integrations: inboundWebhooks(), accounts: accountReader(), queue: bookingQueue() };

export const handler = httpEndpoint(webhookRoutes.bookingWebhook, async (request) => {
  const { outcome } = await receiveBookingDelivery(deps, { secret: request.pathParams.secret, headers: request.headers, rawBody: request.rawBody, readBody: request.readBody });
  return json(200, { received: true, outcome });
});
