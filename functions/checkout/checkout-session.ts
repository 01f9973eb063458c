import { checkoutRoutes } from '../../lib/checkout/routes.ts';
import { createPublicCheckout } from '../../lib/checkout/start-checkout.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { checkoutPayments } from '../../lib/wiring/adapters.ts';
import { checkoutSettings } from '../../lib/wiring/checkout.ts';
import { rateLimiter } from '../../lib/wiring/stores.ts';

const deps = { payments: checkoutPayments(), limiter: rateLimiter(), settings: checkoutSettings() };

export const handler = httpEndpoint(checkoutRoutes.checkoutSession, async ({ body, clientIp }) =>
  json(200, await createPublicCheckout(deps, { planId: body.planId, email: body.email, clientIp })),
);
