import { grantedAccount } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { openBillingPortal } from '../../lib/checkout/billing-portal.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { checkoutPayments } from '../../lib/wiring/adapters.ts';
import { checkoutSettings } from '../../lib/wiring/checkout.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { billingReader } from '../../lib/wiring/stores.ts';

const deps = { billing: billingReader(), payments: checkoutPayments(), dashboardUrl: checkoutSettings().dashboardUrl };

export const handler = httpEndpoint(accountRoutes.billingPortal, guard(), async ({ access }) =>
  json(200, await openBillingPortal(deps, grantedAccount(access).id), { 'cache-control': 'no-store' }),
);
