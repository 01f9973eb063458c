import type { AccountStore } from '../accounts/accounts.ts';
import { ensureAccountFor } from '../accounts/ensure-account.ts';
import type { Logger } from '../log.ts';
import { takeEffectOnce, type OnceDeps } from '../webhooks/deliveries.ts';
import { applyBillingEvent, updateBilling, type BillingOutcome, type BillingStore } from './billing.ts';
import type { BillingEvent, Payments } from './payments.ts';

export interface PaymentWebhookDeps extends OnceDeps {
  payments: Pick<Payments, 'verifiedEvent'>;
  billing: BillingStore;
  accounts: Pick<AccountStore, 'getAccount' | 'getMember' | 'claimMember' | 'saveAccountDetails'>;
  log: Logger;
  newId?: () => string;
}

export interface PaymentDelivery {
  rawBody: string;
  signature: string | undefined;
}

export type DeliveryOutcome = BillingOutcome | 'ignored' | 'unmatched' | 'already-processed';

const SOURCE = 'stripe';

/**
 * 1. Verifies the signature over the raw body before anything else: an
 *    unsigned, tampered, wrongly signed or stale delivery is 400 and writes nothing.
 * 2. An event type the service does not act on is acknowledged and logged, and not recorded.
 * 3. Once per event id (`stripe#<id>`, the delivery log in webhook_events,
 *    as the other webhooks): the first delivery claims it and does 4 and 5;
 *    a copy arriving meanwhile waits for it and is 'already-processed', or,
 *    if it is still at work after the wait, 409 delivery_in_progress, which
 *    Stripe retries. A delivery that fails gives the claim back, and one that
 *    crashed is taken over by a retry once its lease has run out.
 * 4. Finds the account: the account id our checkout wrote into the metadata,
 *    else the account of the provider's customer, else the member with the
 *    checkout's e-mail; a subscription our public checkout started for an
 *    e-mail nobody has yet gets its account (and owner member) now.
 * 5. Applies the event to the account's billing with a compare-and-set, so it
 *    takes effect once and never moves the account backwards (billing.ts),
 *    also when a holder slower than its lease and the retry that took over
 *    both get here, or a crashed delivery had changed the account already.
 *    The delivery's row records the outcome and the account.
 */
export async function receivePaymentEvent(deps: PaymentWebhookDeps, delivery: PaymentDelivery): Promise<DeliveryOutcome> {
  const parsed = deps.payments.verifiedEvent(delivery.rawBody, delivery.signature);
  if (!parsed.handled) {
    deps.log.info('payment event ignored', { eventId: parsed.id, eventType: parsed.type });
    return 'ignored';
  }
  const event = parsed.event;
  const log = deps.log.with({ eventId: event.id, eventType: event.type });

  const once = await takeEffectOnce(deps, `${SOURCE}#${event.id}`, { source: SOURCE }, () => applyPaymentEvent(deps, event, log));
  if (!once.first) {
    log.info('payment event already processed', { outcome: once.outcome });
    return 'already-processed';
  }
  return once.result.outcome;
}

async function applyPaymentEvent(deps: PaymentWebhookDeps, event: BillingEvent, log: Logger): Promise<{ outcome: DeliveryOutcome; accountId?: string }> {
  const accountId = await accountFor(deps, event);
  if (!accountId) {
    // Not a subscription of ours (and no customer we know): nothing to keep current.
    log.warn('payment event matches no account', { customerId: event.customerId, subscriptionId: event.subscriptionId });
    return { outcome: 'unmatched' };
  }

  const change = await updateBilling(deps.billing, accountId, (current) => applyBillingEvent(current, event));
  // The account was found a moment ago; only a deletion in between leaves nothing to update.
  const outcome: DeliveryOutcome = change?.outcome ?? 'unmatched';
  log.info('payment event processed', { outcome, accountId, status: event.status, plan: event.plan });
  return { outcome, accountId };
}

async function accountFor(deps: PaymentWebhookDeps, event: BillingEvent): Promise<string | undefined> {
  const { reference } = event;
  if (reference?.accountId && (await deps.accounts.getAccount(reference.accountId))) return reference.accountId;
  if (event.customerId) {
    const byCustomer = await deps.billing.accountForCustomer(event.customerId);
    if (byCustomer) return byCustomer;
  }
  if (!reference?.email) return undefined;
  return (await ensureAccountFor(deps.accounts, { email: reference.email, userId: reference.userId }, deps.newId)).id;
}
