// A claim on work that several callers may try at once (webhook copies of one
// event, two runs making one folder, two bookings writing one task). The first
// to acquire it holds a lease and does the work; the others learn where it
// stands. A lease, not a lock: a failing holder gives the claim back, a dead
// one's lease lapses and the next caller takes over. A holder slower than its
// lease may overlap its successor, so the work must be safe to do twice (look
// before creating, compare-and-set); only the holder records its value. The
// adapter (dynamodb-claims.ts) uses conditional writes alone: dynalite has no
// transactions and no TTL, so lease and retention are checked in conditions.

/** Where a claim stands for a caller who asked to acquire it. */
export type Acquired<V> =
  /** This holder may work now; in turns, `value` is what the previous holder left. */
  | { state: 'acquired'; value?: V }
  /** The work was done once (kind 'once'): this is its value, and it stands. */
  | { state: 'finished'; value: V }
  /** Another holder's lease is live: come back later. */
  | { state: 'held' };

/** Attributes recorded beside a claim, e.g. which account or provider it is about. */
export type About = Record<string, string>;

export interface ClaimPolicy {
  /**
   * 'once': the first finished value stands for good (a delivery applied, a
   * folder made); 'turns': the value is a record each holder in turn may
   * rewrite (a booking's task, updated by each event of the booking).
   */
  kind: 'once' | 'turns';
  /** How long a holder may work before another may take over: longer than the work can ever run. */
  leaseMs: number;
  /** How long a claim is remembered ('once'); after it, the work may be done again. Default: for good. */
  retentionMs?: number;
}

export interface Claims<K, V> {
  /** Takes the claim if it is free, already this holder's, or its holder's lease has lapsed; `about` is kept from the first acquire. */
  acquire(key: K, holder: string, about?: About): Promise<Acquired<V>>;
  /** Records the value and ends this holder's turn; false when the holder had lost the claim (another took over). */
  finish(key: K, holder: string, value: V, about?: About): Promise<boolean>;
  /** Gives the claim back (the work failed), so the next caller may take it at once. Only its holder can. */
  release(key: K, holder: string): Promise<void>;
  /** Records a value outside any claim (a fact learned elsewhere); under 'once' it stands from now on. */
  record(key: K, value: V): Promise<void>;
  /** The value recorded, if any (under 'once', only a finished claim has one). */
  value(key: K): Promise<V | undefined>;
}

/** Runs the holder's work; if it fails, gives the claim back before the error goes on. */
export async function whileHolding<K, T>(claims: Pick<Claims<K, unknown>, 'release'>, key: K, holder: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await claims.release(key, holder).catch(() => undefined);
    throw error;
  }
}

export interface Patience {
  /** How long to keep asking while another holder works; 0 asks once. */
  waitMs: number;
  /** The pause between two asks. */
  pauseMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Acquires, asking again after a pause while another holder's lease is live, until `waitMs` has passed; then 'held'. */
export async function acquireWaiting<K, V>(claims: Claims<K, V>, key: K, holder: string, patience: Patience, about?: About): Promise<Acquired<V>> {
  const sleep = patience.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let waited = 0; ; waited += patience.pauseMs) {
    const claim = await claims.acquire(key, holder, about);
    if (claim.state !== 'held' || waited >= patience.waitMs) return claim;
    await sleep(patience.pauseMs);
  }
}
