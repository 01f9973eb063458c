import { checkoutRoutes } from '../../lib/checkout/routes.ts';
import { checkoutRedirect } from '../../lib/checkout/start-checkout.ts';
import { accountStore, billingStore, checkoutPayments, identity, settings } from '../../lib/checkout/wiring.ts';
import { bearerToken } from '../../lib/http/credentials.ts';
import { httpEndpoint, redirect, requestUrl } from '../../lib/http/endpoint.ts';

const deps = { identity: identity(), payments: checkoutPayments(), accounts: accountStore(), billing: billingStore(), settings: settings() };

export const handler = httpEndpoint(checkoutRoutes.checkoutRedirect, async (request) => {
  const { status, location } = await checkoutRedirect(deps, {
    accessToken: bearerToken(request.headers),
    plan: request.query.plan,
    requestUrl: requestUrl(request),
  });
  return redirect(status, location);
});
