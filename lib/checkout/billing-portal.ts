import { Conflict } from '../errors.ts';
import type { BillingStore } from '../payments/billing.ts';
import type { Payments } from '../payments/payments.ts';

export interface BillingPortalDeps {
  billing: Pick<BillingStore, 'billingOf'>;
  payments: Pick<Payments, 'openBillingPortal'>;
  /** The dashboard's origin: where the portal's "back" link returns. */
  dashboardUrl: string;
}

/**
 * A customer-portal session for the account's customer at the payment
 * provider (the caller is a billing manager of the account: its rule says so).
 * The plan changes and cancellations made there come back as subscription
 * events through the payment webhook, which keeps the account current.
 */
export async function openBillingPortal(deps: BillingPortalDeps, accountId: string): Promise<{ url: string }> {
  const billing = await deps.billing.billingOf(accountId);
  if (!billing?.customerId) {
    throw new Conflict('This account has no customer at the payment provider yet: choose a plan first', 'no_billing_customer');
  }
  return deps.payments.openBillingPortal({ customerId: billing.customerId, returnUrl: `${deps.dashboardUrl}/dashboard` });
}
