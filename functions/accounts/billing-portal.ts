import { grantedAccount } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { openBillingPortal } from '../../lib/checkout/billing-portal.ts';
import { billingStore, checkoutPayments, settings } from '../../lib/checkout/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const deps = { billing: billingStore(), payments: checkoutPayments(), dashboardUrl: settings.dashboardUrl };

export const handler = httpEndpoint(accountRoutes.billingPortal, guard, async ({ access }) =>
  json(200, await openBillingPortal(deps, grantedAccount(access).id), { 'cache-control': 'no-store' }),
);
