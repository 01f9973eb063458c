import { route } from '../http/route.ts';

export const paymentRoutes = {
  paymentsWebhook: route({
    method: 'POST',
    path: '/webhooks/payments',
    operationId: 'paymentsWebhook',
    lambda: { handler: 'functions/webhooks/payments-webhook.ts' },
    summary:
      'Stripe events (checkout.session.completed, invoice.paid, invoice.payment_failed, customer.subscription.updated and .deleted), verified by the Stripe-Signature header over the raw body',
    tag: 'webhooks',
    access: { who: 'signed' },
    rawBody: true,
    body: { type: 'object', description: 'A Stripe event' },
    responses: {
      200: {
        description:
          'Received: the event is queued for the payments state machine, which applies it once (every copy of an event, at once or later, is the same queued execution), or an event type the service ignores',
        schema: { type: 'object', required: ['received'], properties: { received: { const: true } } },
      },
      400: { description: 'Unsigned, tampered, wrongly signed or older than 300 s (invalid_signature); nothing was written', codes: ['invalid_signature'] },
      500: { description: 'Not queued: Step Functions failed (the provider delivers it again later)' },
    },
  }),
};
