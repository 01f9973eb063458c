import { checkoutRoutes } from '../../lib/checkout/routes.ts';
import { createPublicCheckout } from '../../lib/checkout/start-checkout.ts';
import { checkoutPayments, rateLimiter, settings } from '../../lib/checkout/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { payments: checkoutPayments(), limiter: rateLimiter(), settings };

export const handler = httpEndpoint(checkoutRoutes.checkoutSession, async ({ body, clientIp }) =>
  json(200, await createPublicCheckout(deps, { planId: body.planId, email: body.email, clientIp })),
);
