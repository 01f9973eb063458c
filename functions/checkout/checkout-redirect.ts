import { guard } from '../../lib/access/wiring.ts';
import { memberships } from '../../lib/accounts/wiring.ts';
import { checkoutRoutes } from '../../lib/checkout/routes.ts';
import { checkoutRedirect } from '../../lib/checkout/start-checkout.ts';
import { accountStore, billingStore, checkoutPayments, settings } from '../../lib/checkout/wiring.ts';
import { httpEndpoint, redirect, requestUrl } from '../../lib/http/endpoint.ts';

const deps = { payments: checkoutPayments(), accounts: accountStore(), memberships, billing: billingStore(), settings };

export const handler = httpEndpoint(checkoutRoutes.checkoutRedirect, guard, async (request) => {
  const { status, location } = await checkoutRedirect(deps, { grant: request.access, plan: request.query.plan, requestUrl: requestUrl(request) });
  return redirect(status, location);
});
