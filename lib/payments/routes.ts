import { route } from '../http/route.ts';

export const paymentRoutes = {
  paymentsWebhook: route({
    method: 'POST',
    path: '/webhooks/payments',
    operationId: 'paymentsWebhook',
    summary:
      'Stripe events (checkout.session.completed, invoice.paid, invoice.payment_failed, customer.subscription.updated and .deleted), verified by the Stripe-Signature header over the raw body',
    tag: 'webhooks',
    access: { who: 'signed' },
    rawBody: true,
    body: { type: 'object', description: 'A Stripe event' },
    responses: {
      200: {
        description: 'Received: applied once, or a copy of an event processed before, a stale event or an ignored event type, that changed nothing',
        schema: { type: 'object', required: ['received'], properties: { received: { const: true } } },
      },
      400: { description: 'Unsigned, tampered, wrongly signed or older than 300 s (invalid_signature); nothing was written' },
      409: { description: 'A copy of an event another delivery is handling right now (delivery_in_progress), answered at once with Retry-After: retry later; a retry once it is done gets 200' },
      500: { description: 'Not processed (the provider delivers it again later)' },
    },
  }),
};
