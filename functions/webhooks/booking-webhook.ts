import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { receiveBookingDelivery } from '../../lib/webhooks/receive-booking.ts';
import { webhookRoutes } from '../../lib/webhooks/routes.ts';
import { sfnBookingQueue } from '../../lib/webhooks/sfn-booking-queue.ts';
import { stateMachineArn, webhookStores } from '../../lib/webhooks/stores.ts';
import { sfn } from '../../lib/workflows/step-functions.ts';

const deps = { ...webhookStores, queue: sfnBookingQueue(sfn, stateMachineArn('booking')) };

export const handler = httpEndpoint(webhookRoutes.bookingWebhook, async (request) => {
  const { outcome } = await receiveBookingDelivery(deps, { secret: request.pathParams.secret, headers: request.headers, rawBody: request.rawBody });
  return json(200, { received: true, outcome });
});
