import { checkoutRoutes } from '../../lib/checkout/routes.ts';
import { checkoutRedirect } from '../../lib/checkout/start-checkout.ts';
import { httpEndpoint, redirect, requestUrl } from '../../lib/http/endpoint.ts';
import { checkoutPayments } from '../../lib/wiring/adapters.ts';
import { checkoutSettings } from '../../lib/wiring/checkout.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { accounts, billing, memberships } from '../../lib/wiring/stores.ts';

const deps = { payments: checkoutPayments(), accounts: accounts(), memberships: memberships(), billing: billing(), settings: checkoutSettings() };

export const handler = httpEndpoint(checkoutRoutes.checkoutRedirect, guard(), async (request) => {
  const { status, location } = await checkoutRedirect(deps, { grant: request.access, plan: request.query.plan, requestUrl: requestUrl(request) });
  return redirect(status, location);
});
