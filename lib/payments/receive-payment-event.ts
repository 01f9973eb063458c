import type { AccountStore } from '../accounts/accounts.ts';
import { ensureAccountFor } from '../accounts/ensure-account.ts';
import type { Logger } from '../log.ts';
import { applyBillingEvent, updateBilling, type BillingOutcome, type BillingStore } from './billing.ts';
import type { BillingEvent, Payments } from './payments.ts';
import type { WebhookEventLog } from './webhook-events.ts';

export interface PaymentWebhookDeps {
  payments: Pick<Payments, 'verifiedEvent'>;
  events: WebhookEventLog;
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

const PROVIDER = 'stripe';

/**
 * 1. Verifies the signature over the raw body before anything else: an
 *    unsigned, tampered, wrongly signed or stale delivery is 400 and writes nothing.
 * 2. An event type the service does not act on is acknowledged and logged.
 * 3. Claims the event id (conditional put): a delivery of an event already
 *    processed to the end changes nothing.
 * 4. Finds the account: the account id our checkout wrote into the metadata,
 *    else the account of the provider's customer, else the member with the
 *    checkout's e-mail; a subscription our public checkout started for an
 *    e-mail nobody has yet gets its account (and owner member) now.
 * 5. Applies the event to the account's billing with a compare-and-set, so it
 *    takes effect once and never moves the account backwards (billing.ts),
 *    whatever else is delivering at the same moment or crashed before.
 * 6. Marks the event processed.
 */
export async function receivePaymentEvent(deps: PaymentWebhookDeps, delivery: PaymentDelivery): Promise<DeliveryOutcome> {
  const parsed = deps.payments.verifiedEvent(delivery.rawBody, delivery.signature);
  if (!parsed.handled) {
    deps.log.info('payment event ignored', { eventId: parsed.id, eventType: parsed.type });
    return 'ignored';
  }
  const event = parsed.event;
  const log = deps.log.with({ eventId: event.id, eventType: event.type });

  if ((await deps.events.claim(PROVIDER, event.id, event.type)) === 'finished') {
    log.info('payment event already processed');
    return 'already-processed';
  }

  const accountId = await accountFor(deps, event);
  if (!accountId) {
    // Not a subscription of ours (and no customer we know): nothing to keep current.
    log.warn('payment event matches no account', { customerId: event.customerId, subscriptionId: event.subscriptionId });
    await deps.events.finish(PROVIDER, event.id, { outcome: 'unmatched' });
    return 'unmatched';
  }

  const change = await updateBilling(deps.billing, accountId, (current) => applyBillingEvent(current, event));
  // The account was found a moment ago; only a deletion in between leaves nothing to update.
  const outcome: DeliveryOutcome = change?.outcome ?? 'unmatched';
  await deps.events.finish(PROVIDER, event.id, { outcome, accountId });
  log.info('payment event processed', { outcome, accountId, status: event.status, plan: event.plan });
  return outcome;
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
