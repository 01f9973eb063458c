import { normaliseEmail, type AccountStore } from '../accounts/accounts.ts';
import { ownerships, type MembershipStore } from '../accounts/memberships.ts';
import { derivedAccountId } from '../accounts/open-account.ts';
import { issue, openInvitation, type TeamDeps } from '../accounts/team.ts';
import { takeEffectOnce, type OnceDeps } from '../deliveries/deliveries.ts';
import type { Logger } from '../log.ts';
import { mayAct } from '../permissions.ts';
import type { FollowUps } from '../provisioning/follow-ups.ts';
import { applyBillingEvent, updateBilling, type Billing, type BillingOutcome, type BillingStore, type ConflictReason, type Starter } from './billing.ts';
import { paymentEventKey, paymentJobName, type PaymentQueue } from './payment-queue.ts';
import { CHECKOUT_PERMISSION, isLiveSubscription, type BillingEvent, type Payments } from './payments.ts';

/** What the payment webhook itself needs: it verifies, then queues. */
export interface PaymentWebhookDeps {
  payments: Pick<Payments, 'verifiedEvent'>;
  queue: PaymentQueue;
  log: Logger;
}

/** What applying a payment event needs (the payments state machine's step). */
export interface ApplyPaymentDeps extends OnceDeps {
  billing: BillingStore;
  accounts: Pick<AccountStore, 'getAccount' | 'saveAccountDetails'>;
  /**
   * Who owns which account: a public purchase links by e-mail only to an account that address owns. And who may
   * still manage an account's billing: a signed-in checkout links only while its starter may.
   */
  memberships: Pick<MembershipStore, 'ofEmail' | 'get'>;
  /** How the buyer of a purchase that makes a new account is invited to own it. */
  team: TeamDeps;
  /** Where a purchase the webhook would not link waits for an operator. */
  followUps: Pick<FollowUps, 'open'>;
  /** What else follows the account's subscription: its end offboards the client after a grace period (lib/offboarding). */
  subscriptions?: SubscriptionWatch;
  log: Logger;
}

/** Told the account's subscription as it stands after each event applied: live or not, which, and since when. */
export interface SubscriptionWatch {
  changed(accountId: string, subscription: { subscriptionId?: string; live: boolean; at: number }): Promise<void>;
}

export interface PaymentDelivery {
  rawBody: string;
  signature: string | undefined;
}

export type DeliveryOutcome = BillingOutcome | 'unmatched' | 'already-processed';

const SOURCE = 'stripe';

/**
 * The payment webhook: answers as soon as the event is safe with us.
 * 1. Verifies the signature over the raw body before anything else: an
 *    unsigned, tampered, wrongly signed or stale delivery is 400 and writes nothing.
 * 2. An event type the service does not act on is acknowledged and logged, and not queued.
 * 3. Queues the event for the payments state machine, as an execution named
 *    after the event id: every copy of an event, at once or days later, is
 *    the same execution, so each copy is acknowledged at once and the event
 *    is applied once. Queueing fails only when Step Functions does (5xx): the
 *    provider then delivers the event again.
 */
export async function receivePaymentEvent(deps: PaymentWebhookDeps, delivery: PaymentDelivery): Promise<'queued' | 'already-queued' | 'ignored'> {
  const parsed = await deps.payments.verifiedEvent(delivery.rawBody, delivery.signature);
  if (!parsed.handled) {
    deps.log.info('payment event ignored', { eventId: parsed.id, eventType: parsed.type });
    return 'ignored';
  }
  const { event } = parsed;
  const queued = await deps.queue.enqueue(paymentJobName(event.id), { event });
  deps.log.info(queued === 'queued' ? 'payment event queued' : 'payment event already queued', { eventId: event.id, eventType: event.type });
  return queued;
}

/**
 * The payments state machine's step: applies one verified event once per event
 * id (a claim on `stripe#<id>` in webhook_events), to the account our checkout's
 * metadata names, else the customer's, else the one whose owner joined with the
 * checkout's e-mail, else a new account whose owner is invited. A public
 * checkout never replaces a live subscription, and a signed-in checkout whose
 * starter may no longer manage billing links nothing: both are a `conflict`
 * and a billing follow-up. docs/decisions/0001-payment-events.md has the rules.
 */
export async function applyPaymentEventOnce(deps: ApplyPaymentDeps, event: BillingEvent): Promise<DeliveryOutcome> {
  const log = deps.log.with({ eventId: event.id, eventType: event.type });
  const once = await takeEffectOnce(deps, paymentEventKey(event.id), { source: SOURCE }, () => applyPaymentEvent(deps, event, log));
  if (!once.first) {
    log.info('payment event already processed', { outcome: once.outcome });
    return 'already-processed';
  }
  return once.result.outcome;
}

async function applyPaymentEvent(deps: ApplyPaymentDeps, event: BillingEvent, log: Logger): Promise<{ outcome: DeliveryOutcome; accountId?: string }> {
  const accountId = await accountFor(deps, event);
  if (!accountId) {
    // Not a subscription of ours (and no customer we know): nothing to keep current.
    log.warn('payment event matches no account', { customerId: event.customerId, subscriptionId: event.subscriptionId });
    return { outcome: 'unmatched' };
  }

  const starter = await starterOf(deps, event, accountId);
  let decidedOn: Billing | undefined;
  const change = await updateBilling(deps.billing, accountId, (current) => {
    decidedOn = current;
    return applyBillingEvent(current, event, starter);
  });
  // The account was found a moment ago; only a deletion in between leaves nothing to update.
  const outcome: DeliveryOutcome = change?.outcome ?? 'unmatched';
  if (change?.outcome === 'conflict') {
    await recordUnlinkedCheckout(deps, event, accountId, change.reason, decidedOn, log);
    return { outcome: change.outcome, accountId };
  }
  log.info('payment event processed', { outcome, accountId, status: event.status, plan: event.plan });
  // The billing as it stands now (an event applied before, delivered again, changes nothing, but the watch may have missed it).
  const standing = change?.outcome === 'applied' ? change.next : change?.outcome === 'duplicate' ? decidedOn : undefined;
  if (standing && deps.subscriptions) {
    await deps.subscriptions.changed(accountId, { subscriptionId: standing.subscriptionId, live: isLiveSubscription(standing.status), at: standing.eventAt ?? event.created });
  }
  return { outcome, accountId };
}

async function accountFor(deps: ApplyPaymentDeps, event: BillingEvent): Promise<string | undefined> {
  const { reference } = event;
  if (reference?.accountId && (await deps.accounts.getAccount(reference.accountId))) return reference.accountId;
  if (event.customerId) {
    const byCustomer = await deps.billing.accountForCustomer(event.customerId);
    if (byCustomer) return byCustomer;
  }
  if (!reference?.email) return undefined;
  const email = normaliseEmail(reference.email);
  const owned = new Set(ownerships(await deps.memberships.ofEmail(email)).map((m) => m.account_id));
  if (owned.size === 1) return [...owned][0];
  return accountOfPurchase(deps, email, event);
}

/**
 * Whether the user who started the event's checkout for this account may still manage its billing: the rule the
 * checkout route applied when they started it, asked again now. Not asked of a public checkout (it names no user),
 * nor of an event whose metadata names an account other than the one it was applied to.
 */
async function starterOf(deps: ApplyPaymentDeps, event: BillingEvent, accountId: string): Promise<Starter> {
  const { reference } = event;
  if (!reference?.userId || reference.accountId !== accountId) return {};
  return { mayManageBilling: mayAct(await deps.memberships.get(accountId, reference.userId), CHECKOUT_PERMISSION) };
}

/** The account a public purchase makes: its id derived from the subscription, so its events converge on one. */
async function accountOfPurchase(deps: ApplyPaymentDeps, email: string, event: BillingEvent): Promise<string> {
  const accountId = derivedAccountId(`purchase:${event.subscriptionId ?? event.customerId ?? email}`);
  await deps.accounts.saveAccountDetails(accountId, { contact_email: email });
  if (!(await openInvitation(deps.team, accountId, email))) {
    // The purchase's events are applied side by side (one execution each), and each may look before the other
    // writes: the invitation's id is derived from the account, so only one is written and e-mailed.
    const invitationId = derivedAccountId(`purchase-invitation:${accountId}`);
    try {
      await issue({ ...deps.team, newId: () => invitationId }, { accountId, email, role: 'owner', invitedBy: { kind: 'checkout' } }, { keepIfUnsent: deps.log });
    } catch (error) {
      if (!(await deps.team.invitations.get(invitationId))) throw error;
    }
  }
  return accountId;
}

/** `current`: the account's billing the conflict was decided on. */
async function recordUnlinkedCheckout(
  deps: ApplyPaymentDeps,
  event: BillingEvent,
  accountId: string,
  reason: ConflictReason,
  current: Billing | undefined,
  log: Logger,
): Promise<void> {
  const context = {
    eventId: event.id,
    reason,
    customerId: event.customerId,
    subscriptionId: event.subscriptionId,
    plan: event.plan,
    ...(reason === 'starter-not-allowed' ? { startedBy: event.reference?.userId } : {}),
    accountCustomerId: current?.customerId,
    accountSubscriptionId: current?.subscriptionId,
  };
  const subscription = event.subscriptionId ?? '?';
  const pays = current?.subscriptionId ? `the account keeps ${current.subscriptionId}` : 'the account keeps no subscription';
  const [warning, message] =
    reason === 'public-checkout'
      ? [
          'a public checkout matches an account that pays for another subscription; not linked',
          `A public checkout with this account's e-mail started subscription ${subscription} while the account pays for ${current?.subscriptionId ?? '?'}; it was not linked`,
        ]
      : [
          "a checkout was paid after its starter was no longer allowed to manage the account's billing; not linked",
          `A checkout started by user ${event.reference?.userId ?? '?'} was paid (subscription ${subscription}, plan ${event.plan ?? '?'}) when they were no longer allowed to manage this account's billing (removed, left, or their role changed); it was not linked, and ${pays}`,
        ];
  log.warn(warning, { accountId, ...context });
  // The buyer has paid for a subscription no account has: refund, cancel or link it at the provider by hand.
  await deps.followUps.open(accountId, paymentEventKey(event.id), { integration: 'billing', message, context });
}
