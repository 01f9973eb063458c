// An account's billing: its plan, its customer and subscription at the
// payment provider, and what the provider last told us about them. The rules
// here are pure; the store only ever writes a state computed by them over the
// exact state it was computed from (compare-and-set on `version`), so two
// writers can never interleave.
import { Conflict } from '../errors.ts';
import { isLiveSubscription, type BillingEvent } from './payments.ts';
import type { Plan } from './plans.ts';

/** How many applied event ids an account remembers, to refuse a late duplicate. */
export const REMEMBERED_EVENTS = 20;

export interface Billing {
  plan?: string;
  customerId?: string;
  subscriptionId?: string;
  status?: string;
  /** `created` of the newest event applied (epoch seconds). */
  eventAt?: number;
  /** Ids of the latest events applied, oldest first. */
  recentEvents: string[];
}

export interface VersionedBilling extends Billing {
  /** Bumped by every write; 0 for an account that has never had one. */
  version: number;
}

export interface BillingStore {
  /** The billing of an account; undefined when there is no such account. */
  billingOf(accountId: string): Promise<VersionedBilling | undefined>;
  /** Writes `next` (as version + 1) only if the account is still at `expectedVersion`; false when it moved on. */
  saveBilling(accountId: string, expectedVersion: number, next: Billing): Promise<boolean>;
  /** The account whose provider customer this is. */
  accountForCustomer(customerId: string): Promise<string | undefined>;
}

export type BillingOutcome = 'applied' | 'duplicate' | 'stale' | 'other-subscription' | 'conflict';

/** Why a completed checkout was not linked to the account it names or matches. */
export type ConflictReason =
  /** Linked by e-mail alone, while the account's subscription is live. */
  | 'public-checkout'
  /** Started by a signed-in user who may no longer manage the account's billing (removed, or their role changed). */
  | 'starter-not-allowed';

export type BillingChange =
  | { outcome: 'applied'; next: Billing }
  | { outcome: 'conflict'; reason: ConflictReason }
  | { outcome: Exclude<BillingOutcome, 'applied' | 'conflict'> };

/** What the step found out, as it applied an event, about the signed-in user who started the event's checkout. */
export interface Starter {
  /** Whether they may still manage the account's billing; undefined for a public checkout, or a subscription we did not start. */
  mayManageBilling?: boolean;
}

/**
 * What an event does to an account's billing: an event id takes effect once,
 * never backwards (an older event than the newest applied is stale), another
 * subscription of the customer leaves a live one alone, a public checkout never
 * replaces a live subscription and a starter who may no longer manage billing
 * links nothing (both `conflict`), and the plan changes only when the event
 * names one. docs/decisions/0001-payment-events.md has the rules and why.
 */
export function applyBillingEvent(current: Billing, event: BillingEvent, starter: Starter = {}): BillingChange {
  if (current.recentEvents.includes(event.id)) return { outcome: 'duplicate' };
  if (current.eventAt !== undefined && event.created < current.eventAt) return { outcome: 'stale' };
  if (starter.mayManageBilling === false && (!event.subscriptionId || event.subscriptionId !== current.subscriptionId)) {
    return event.type === 'checkout.session.completed' ? { outcome: 'conflict', reason: 'starter-not-allowed' } : { outcome: 'other-subscription' };
  }
  // The event is about a subscription other than the one the account pays for now.
  const anotherWhileLive = Boolean(
    event.subscriptionId && current.subscriptionId && event.subscriptionId !== current.subscriptionId && isLiveSubscription(current.status),
  );
  if (anotherWhileLive && event.type === 'checkout.session.completed' && !event.reference?.accountId) return { outcome: 'conflict', reason: 'public-checkout' };
  if (anotherWhileLive && event.type !== 'checkout.session.completed') {
    return { outcome: 'other-subscription' };
  }
  return {
    outcome: 'applied',
    next: {
      plan: event.plan ?? current.plan,
      customerId: event.customerId ?? current.customerId,
      subscriptionId: event.subscriptionId ?? current.subscriptionId,
      status: event.status,
      eventAt: Math.max(current.eventAt ?? event.created, event.created),
      recentEvents: [...current.recentEvents, event.id].slice(-REMEMBERED_EVENTS),
    },
  };
}

export type FreePlanChange = { outcome: 'recorded'; next: Billing } | { outcome: 'already-free' } | { outcome: 'kept-subscription' };

/**
 * Choosing the free plan needs no payment, but it does not end a live paid
 * subscription either (that is the provider's billing portal's job): while one
 * is live, the account keeps the plan it pays for. An account already on free
 * is not written again: concurrent clicks on free then settle after one write,
 * instead of each re-writing it and making the others retry (updateBilling
 * gives up after a few rounds).
 */
export function chooseFreePlan(current: Billing): FreePlanChange {
  if (current.subscriptionId && isLiveSubscription(current.status)) return { outcome: 'kept-subscription' };
  if (current.plan === 'free') return { outcome: 'already-free' };
  return { outcome: 'recorded', next: { ...current, plan: 'free' satisfies Plan } };
}

/** The most attempts at a compare-and-set before giving up (each loser re-reads and re-decides). */
const MAX_ATTEMPTS = 10;
/** The longest pause between attempts: losers spread out (full jitter) instead of colliding again at once. */
const MAX_PAUSE_MS = 40;

/** The account's billing changed under every attempt: answered 409 with Retry-After, so the provider sends the event again. */
export class BillingBusy extends Conflict {
  override readonly retryAfterSeconds = 1;
  constructor() {
    super('The account\'s billing is being changed by other events right now; send this one again after Retry-After seconds', 'billing_busy');
  }
}

/**
 * Reads, decides and writes until the write lands on the state it was decided
 * from. Answers with what the decision was; undefined when the account does not exist.
 */
export async function updateBilling<C extends { outcome: string; next?: Billing }>(
  store: Pick<BillingStore, 'billingOf' | 'saveBilling'>,
  accountId: string,
  decide: (current: Billing) => C,
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<C | undefined> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    if (attempt > 1) await pause(Math.random() * Math.min(MAX_PAUSE_MS, 2 ** attempt));
    const current = await store.billingOf(accountId);
    if (!current) return undefined;
    const change = decide(current);
    if (!change.next) return change;
    if (await store.saveBilling(accountId, current.version, change.next)) return change;
  }
  throw new BillingBusy();
}
