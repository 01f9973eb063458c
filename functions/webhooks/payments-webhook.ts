import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { receivePaymentEvent } from '../../lib/payments/receive-payment-event.ts';
import { paymentRoutes } from '../../lib/payments/routes.ts';
import { paymentEvents } from '../../lib/wiring/adapters.ts';
import { paymentQueue } from '../../lib/wiring/workflows.ts';

const deps = { payments: paymentEvents(), queue: paymentQueue() };

// The route keeps the raw body: the signature is over the bytes as sent. The event is applied by the
// payments state machine (apply-payment-event), so every copy of it is answered at once.
export const handler = httpEndpoint(paymentRoutes.paymentsWebhook, async ({ rawBody, headers, log }) => {
  await receivePaymentEvent({ ...deps, log }, { rawBody, signature: headers['stripe-signature'] });
  return json(200, { received: true });
});
