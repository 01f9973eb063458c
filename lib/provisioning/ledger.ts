// What each step created at each vendor, per account: ids, paths, links, sent
// e-mails. A step consults it first, so a re-run or a redrive creates only
// what is missing, even where the vendor itself has no idempotency.
//
// Two runs of one account may overlap (a changed resubmission while the first
// run works, an enhanced onboarding beside onboarding-v2), so a miss is not
// enough to go ahead: each entry is a claim (lib/store/claims.ts) whose
// holder is the maker, a run, and only the holder calls the vendor. The same
// run may always take its own claim again: a step retried or redriven after
// it died mid-way goes on at once (its vendor calls look before they create).
// Another run waits; a claim whose run stopped altogether lapses after its lease.
import { VendorError } from '../errors.ts';
import { acquireWaiting, whileHolding, type ClaimPolicy, type Claims } from '../store/claims.ts';

export interface EntryKey {
  accountId: string;
  /** `<vendor>#<what>`, e.g. "clickup#folder". */
  resource: string;
}

export type LedgerClaims = Claims<EntryKey, Record<string, unknown>>;

export interface Ledger {
  /** What was made, once it was. */
  get<T = Record<string, unknown>>(accountId: string, resource: string): Promise<T | undefined>;
  /** Records what was made, or learned elsewhere (it stands from now on). */
  put(accountId: string, resource: string, value: Record<string, unknown>): Promise<void>;
  /** The entries as claims: the right to make one, held by one maker at a time. */
  claims: LedgerClaims;
}

export const LEDGER_CLAIMS: ClaimPolicy = {
  kind: 'once',
  // How long a claim holds against a maker that died: the longest a step Lambda runs.
  leaseMs: 300_000,
};

export function ledgerOf(claims: LedgerClaims): Ledger {
  return {
    claims,
    get: async <T,>(accountId: string, resource: string) => (await claims.value({ accountId, resource })) as T | undefined,
    put: (accountId, resource, value) => claims.record({ accountId, resource }, value),
  };
}

export interface RememberOptions {
  /** How long to wait for another maker before failing transiently (the state machine retries). */
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const WAIT_MS = 10_000;
const PAUSE_MS = 250;

/** One thing made for an account, and the run (execution, job) making it. */
export interface Entry extends EntryKey {
  maker: string;
}

/** Reads the ledger; on a miss, claims the entry, makes the thing and records it. */
export async function remembered<T extends Record<string, unknown>>(
  ledger: Ledger,
  { accountId, resource, maker }: Entry,
  make: () => Promise<T>,
  options: RememberOptions = {},
): Promise<T> {
  // A read first: on a re-run most entries are made, and a read costs less than the claim's write.
  const known = await ledger.get<T>(accountId, resource);
  if (known) return known;
  const key = { accountId, resource };
  const claim = await acquireWaiting(ledger.claims, key, maker, { waitMs: options.waitMs ?? WAIT_MS, pauseMs: PAUSE_MS, sleep: options.sleep });
  if (claim.state === 'finished') return claim.value as T;
  if (claim.state === 'held') {
    const vendor = resource.split('#')[0]!;
    throw new VendorError(vendor, `${vendor}: another run of this account is still making ${resource}`, { transient: true, operation: `make ${resource}` });
  }
  const made = await whileHolding(ledger.claims, key, maker, make);
  // False only when this run outlived its lease and another maker took over: that one records what it made.
  await ledger.claims.finish(key, maker, made);
  return made;
}
