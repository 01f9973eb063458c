import { memberships, teamDeps } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { receivePaymentEvent } from '../../lib/payments/receive-payment-event.ts';
import { paymentRoutes } from '../../lib/payments/routes.ts';
import { accountStore, billingStore, deliveryLog, followUpList, paymentEvents } from '../../lib/payments/wiring.ts';

const deps = {
  payments: paymentEvents(),
  deliveries: deliveryLog(),
  billing: billingStore(),
  accounts: accountStore(),
  memberships,
  team: teamDeps,
  followUps: followUpList(),
};

// The route keeps the raw body: the signature is over the bytes as sent. A copy of an
// event still being handled by another delivery throws DeliveryInProgress: 409, which Stripe retries.
export const handler = httpEndpoint(paymentRoutes.paymentsWebhook, async ({ rawBody, headers, log }) => {
  await receivePaymentEvent({ ...deps, log }, { rawBody, signature: headers['stripe-signature'] });
  return json(200, { received: true });
});
