// Each inbound delivery takes effect once, though providers retry and may send
// the same delivery several times at once. The membership webhook and the
// payments step go through here: webhook_events holds a claim (lib/store/claims.ts)
// per event key, whose value is what the delivery that did the work did.
// One conditional write tells every copy where the event stands: the first does
// the work; a copy of a finished event is a duplicate; a copy arriving meanwhile
// gets 409 delivery_in_progress with Retry-After, so the provider retries later.
// A claim is a lease: failed work gives it back, a dead Lambda's runs out, so a
// delivery is never both acknowledged and lost. A holder slower than its lease
// may overlap a retry, so the work must be safe to do twice.
import { randomUUID } from 'node:crypto';
import { Conflict } from '../errors.ts';
import { whileHolding, type ClaimPolicy, type Claims } from '../store/claims.ts';

/** The delivery log: per event key, what the delivery that did the work did ("applied", "ignored: …"). */
export type DeliveryLog = Claims<string, string>;

export const DELIVERY_CLAIMS: ClaimPolicy = {
  kind: 'once',
  // Longer than a webhook Lambda can run: a lease outlives its holder only when the holder died.
  leaseMs: 60_000,
  // Longer than any provider retries (Stripe: three days).
  retentionMs: 30 * 86_400_000,
};

/** What the delivery row records about the event from the moment it is claimed. */
export interface DeliveryAbout {
  /** The provider, e.g. "calendly", "memberstack", "stripe". */
  source: string;
  /** The account, when it is known before the work (from the webhook URL); else the work's result names it. */
  accountId?: string;
}

export interface OnceDeps {
  deliveries: DeliveryLog;
  now?: () => Date;
}

/** What the work did: `outcome` (and `detail`, for the row only) is recorded; so is `accountId`, when the work is what finds the account. */
export interface WorkResult {
  outcome: string;
  detail?: string;
  accountId?: string;
}

export type Once<T> = { first: true; result: T } | { first: false; outcome?: string };

/** A copy of an event whose first delivery is still at work: the provider should send it again shortly. */
export class DeliveryInProgress extends Conflict {
  /** The first copy usually finishes within milliseconds; a retry after it learns the outcome. */
  override readonly retryAfterSeconds = 1;
  constructor() {
    super('Another delivery of this event is being handled right now; send it again after Retry-After seconds', 'delivery_in_progress');
  }
}

/**
 * Runs `work` for the first delivery of an event only: a copy of a finished
 * event answers as a duplicate (its outcome); a copy arriving while another
 * delivery works on the event is DeliveryInProgress (409, Retry-After).
 */
export async function takeEffectOnce<T extends WorkResult>(deps: OnceDeps, eventKey: string, about: DeliveryAbout, work: () => Promise<T>): Promise<Once<T>> {
  const holder = randomUUID();
  const receivedAt = (deps.now?.() ?? new Date()).toISOString();
  const claim = await deps.deliveries.acquire(eventKey, holder, {
    source: about.source,
    ...(about.accountId ? { account_id: about.accountId } : {}),
    received_at: receivedAt,
  });
  if (claim.state === 'finished') return { first: false, outcome: claim.value };
  if (claim.state === 'held') throw new DeliveryInProgress();

  const result = await whileHolding(deps.deliveries, eventKey, holder, work);
  // When finish finds the claim lost (this delivery outlived its lease and a retry took over), the retry records its own outcome.
  await deps.deliveries.finish(eventKey, holder, result.detail ? `${result.outcome}: ${result.detail}` : result.outcome, result.accountId ? { account_id: result.accountId } : undefined);
  return { first: true, result };
}
