// Each inbound delivery takes effect once. Providers retry (Svix on any
// non-2xx, Calendly for a day, Stripe for three days), and may send the same
// delivery several times at once; the first to claim its event key does the
// work, the others wait for it and answer as duplicates. Every inbound
// webhook (membership, booking, payments) goes through here, so the
// webhook_events table holds one kind of row.
//
// A claim is a lease, not a verdict: if the work fails, the claim is given
// back and the provider's retry does it again; if the Lambda dies mid-way,
// the lease runs out and a retry takes over. So a delivery is never both
// acknowledged and lost. A holder merely slower than its lease may still be
// at work when a retry takes over, so the work must be safe to do twice (a
// named execution, a compare-and-set on what it writes).
import { Conflict } from '../errors.ts';

export type Claim =
  | { state: 'claimed'; token: string }
  /** Another delivery of the same event finished; `outcome` is what it did. */
  | { state: 'done'; outcome?: string }
  /** Another delivery of the same event holds a live claim. */
  | { state: 'in-progress' };

/** What a waiting duplicate sees when it looks again, without claiming. */
export type Seen =
  | { state: 'done'; outcome?: string }
  | { state: 'in-progress' }
  /** Nobody holds the event any more (the claim was given back, or its lease ran out): claim it. */
  | { state: 'free' };

/** What the delivery row records about the event from the moment it is claimed. */
export interface DeliveryAbout {
  /** The provider, e.g. "calendly", "memberstack", "stripe". */
  source: string;
  /** The account, when it is known before the work (from the webhook URL); else the work's result names it. */
  accountId?: string;
}

export interface DeliveryLog {
  /** Claims the event for this delivery, unless it was taken already (and not given back or expired). */
  claim(eventKey: string, about: DeliveryAbout): Promise<Claim>;
  /** Marks the claimed event done, with what was done and, when the work found it, the account it was for. */
  complete(eventKey: string, token: string, outcome: string, accountId?: string): Promise<void>;
  /** Gives the claim back, so the provider's retry can do the work. */
  release(eventKey: string, token: string): Promise<void>;
  /** Reads where the event stands (one read, where claiming again would be a write and a read). */
  peek(eventKey: string): Promise<Seen>;
}

export interface OnceDeps {
  deliveries: DeliveryLog;
  /** How long a duplicate waits for the delivery holding the claim; default 8 s. */
  peerWaitMs?: number;
  /** The first wait before a duplicate looks again (default 10 ms); each next one is half as long again, up to pollMs. */
  firstPollMs?: number;
  /** The longest wait between two looks; default 100 ms. */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** What the work did: `outcome` (and `detail`, for the row only) is recorded; so is `accountId`, when the work is what finds the account. */
export interface WorkResult {
  outcome: string;
  detail?: string;
  accountId?: string;
}

export type Once<T> = { first: true; result: T } | { first: false; outcome?: string };

export class DeliveryInProgress extends Conflict {
  constructor() {
    super('The same delivery is being handled right now; retry it later', 'delivery_in_progress');
  }
}

/**
 * Runs `work` for the first delivery of an event only. A duplicate arriving
 * while the first is still working waits a little for it (the usual case is
 * a burst of identical retries) and answers as a duplicate once it is done;
 * if it is still not done, DeliveryInProgress (409) makes the provider retry
 * later rather than acknowledging something that might yet fail.
 */
export async function takeEffectOnce<T extends WorkResult>(
  deps: OnceDeps,
  eventKey: string,
  about: DeliveryAbout,
  work: () => Promise<T>,
): Promise<Once<T>> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxPollMs = deps.pollMs ?? 100;
  // Long enough for any working holder, short of the providers' own answer
  // timeouts (Calendly and Svix wait 15 s): a 409 is for a holder that died.
  const peerWaitMs = deps.peerWaitMs ?? 8000;
  // The holder's work is usually a write or two: look again soon, then less often.
  let wait = Math.min(deps.firstPollMs ?? 10, maxPollMs);
  let seen: Claim | Seen = { state: 'free' };
  for (let waited = 0; ; ) {
    if (seen.state === 'free') seen = await deps.deliveries.claim(eventKey, about);
    if (seen.state === 'done') return { first: false, outcome: seen.outcome };
    if (seen.state === 'claimed') return { first: true, result: await workOnce(deps.deliveries, eventKey, seen.token, work) };
    if (waited >= peerWaitMs) throw new DeliveryInProgress();
    await sleep(wait);
    waited += wait;
    wait = Math.min(Math.ceil(wait * 1.5), maxPollMs);
    seen = await deps.deliveries.peek(eventKey);
  }
}

async function workOnce<T extends WorkResult>(deliveries: DeliveryLog, eventKey: string, token: string, work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await deliveries.release(eventKey, token).catch(() => undefined);
    throw error;
  }
  await deliveries.complete(eventKey, token, result.detail ? `${result.outcome}: ${result.detail}` : result.outcome, result.accountId);
  return result;
}
