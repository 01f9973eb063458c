// Pacing: every vendor call takes a slot from a schedule shared by every run,
// one per vendor credential, so that a burst goes at the vendor's published
// rate instead of into its 429s. A step books its slots in one go (as many as
// its integration declares), so runs are served in the order they asked. A
// near slot is waited for in the step; a later one, or a vendor's "later",
// ends the step with MustWait: it answers "waiting" with its bookings, and the
// state machine waits in a Wait state and runs it again. Outside a step (a
// person waiting on an HTTP answer) a call waits for its own slot only when it
// is near, and otherwise fails as throttled.
import { AsyncLocalStorage } from 'node:async_hooks';
import { VendorError } from '../errors.ts';

/** A vendor's published limit for the plan in use: `limit` calls per `windowSeconds`. */
export interface Rate {
  limit: number;
  windowSeconds: number;
}

/** One vendor credential's schedule, and its rate (none: its calls are not paced, a "later" is still honoured). */
export interface PaceRule {
  vendor: string;
  /** `<vendor>#<digest of the credential>`, never the credential itself. */
  key: string;
  rate: Rate | null;
}

/** The schedules, shared by every run (pacing-schedule.ts keeps them in DynamoDB). */
export interface PaceSchedule {
  /** Books `count` consecutive slots `intervalMs` apart: the first slot's time (ms), never before `now`. */
  book(key: string, count: number, intervalMs: number, now: number): Promise<number>;
  /** No slot is given before `at` (ms): the vendor said to wait until then. */
  holdUntil(key: string, at: number): Promise<void>;
}

/** Slots a step booked on one schedule. */
export interface Booking {
  vendor: string;
  key: string;
  /** The first slot (ms since the epoch). */
  first: number;
  intervalMs: number;
  /** How far ahead of its slot a call may go: the vendor's window takes a small burst. */
  burstMs: number;
  count: number;
  /** Slots used so far. */
  used: number;
}

/** The step must come back later: at `until`, with its bookings. Never a failure. */
export class MustWait extends Error {
  override name = 'MustWait';
  readonly vendor: string;
  readonly until: number;
  readonly bookings: Booking[];
  constructor(vendor: string, until: number, bookings: Booking[]) {
    super(`waiting for ${vendor} until ${new Date(until).toISOString()}`);
    this.vendor = vendor;
    this.until = until;
    this.bookings = bookings;
  }
}

/** Paced below the limit, so that calls a little late or early never make a vendor window overflow. */
export const PACE_SHARE = 0.95;
/** After a quiet spell, this share of the limit may go at once: with the pace, a vendor window still takes less than its limit. */
export const BURST_SHARE = 0.03;
/**
 * How late a call may be sent after its slot (its Lambda, the network, an earlier call of the same
 * step answering slowly) and still not share a window with the limit's worth after it.
 */
export const LATENESS_MS = 500;

/**
 * The spacing of slots and the burst a rule allows: at most 95% of the rate, and slow enough that
 * the limit's worth of slots spans its window and a little more; after a quiet spell, 3% of the
 * limit may go at once.
 */
export function cadenceOf(rate: Rate): { intervalMs: number; burstMs: number } {
  const windowMs = rate.windowSeconds * 1000;
  const intervalMs = Math.max(windowMs / (rate.limit * PACE_SHARE), (windowMs + LATENESS_MS) / rate.limit);
  const burst = Math.floor(rate.limit * BURST_SHARE);
  return { intervalMs, burstMs: burst * intervalMs };
}

/** What a vendor adapter uses to pace its calls. */
export interface VendorPace {
  readonly vendor: string;
  /** Waits for this call's slot, or throws MustWait when it is too far off (inside a step; nothing outside). */
  take(): Promise<void>;
  /** The vendor said "later" (`afterMs` from now, if it said): inside a step, throws MustWait; outside, returns. */
  later(afterMs: number | undefined): Promise<void>;
}

export interface StepPacing {
  /** Bookings carried from this step's previous invocation (its "waiting" answer). */
  bookings?: Booking[];
  /** How many calls to book at once, per vendor: what the integration declares. */
  calls?: Readonly<Record<string, number>>;
}

interface Context {
  bookings: Map<string, Booking>;
  calls: Readonly<Record<string, number>>;
  /** Per schedule, the step's pacing work in order: calls a step makes at once take their slots one after another. */
  turns: Map<string, Promise<unknown>>;
  /** Schedules this step booked again after a vendor's "later": its other refused calls wait with that booking. */
  heldFor: Map<string, MustWait>;
}

/**
 * Runs `work` after the step's earlier pacing work on the same schedule has settled; once the step
 * was held on that schedule, every later turn ends with the same MustWait instead.
 */
function inTurn<T>(ctx: Context, key: string, work: () => Promise<T>): Promise<T> {
  const mine = (ctx.turns.get(key) ?? Promise.resolve()).then(() => {
    const held = ctx.heldFor.get(key);
    if (held) throw held;
    return work();
  });
  ctx.turns.set(key, mine.catch(() => undefined));
  return mine;
}

/**
 * How long before its slot a waiting step is woken: starting its Lambda takes time, and a call sent
 * that late could share a vendor window with the next one. The step waits out the rest itself.
 */
export const WAKE_EARLY_MS = 1000;

export interface PacingDeps {
  schedule: PaceSchedule;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The longest wait for a slot spent inside the step; a longer one goes back to the state machine. */
  inlineMs?: number;
  /** The longest wait for a slot outside a step, where a person waits on the answer; a longer one fails the call as throttled. */
  personWaitMs?: number;
  /** How long to wait after a "later" that said nothing of when. */
  unhintedMs?: number;
}

export interface Pacing {
  /** Runs a step's work with its pacing: its vendor calls take slots, and may end it with MustWait. */
  within<T>(step: StepPacing, work: () => Promise<T>): Promise<T>;
  /** The pace of one vendor credential. */
  of(rule: PaceRule): VendorPace;
}

export function pacing(deps: PacingDeps): Pacing {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const inlineMs = deps.inlineMs ?? 2000;
  const personWaitMs = deps.personWaitMs ?? 10_000;
  const unhintedMs = deps.unhintedMs ?? 5000;
  const storage = new AsyncLocalStorage<Context>();

  const snapshot = (ctx: Context) => [...ctx.bookings.values()].map((b) => ({ ...b }));

  async function book(ctx: Context, rule: PaceRule, rate: Rate, count: number): Promise<Booking> {
    const { intervalMs, burstMs } = cadenceOf(rate);
    const first = await deps.schedule.book(rule.key, count, intervalMs, now());
    const booking = { vendor: rule.vendor, key: rule.key, first, intervalMs, burstMs, count, used: 0 };
    ctx.bookings.set(rule.key, booking);
    return booking;
  }

  /** When the booking's next slot lets a call go. */
  const nextGo = (b: Booking) => b.first + b.used * b.intervalMs - b.burstMs;

  return {
    within(step, work) {
      const at = now();
      const bookings = new Map<string, Booking>();
      for (const carried of step.bookings ?? []) {
        // Woken a little before its slot, as asked, the step waits for it; woken long before (a wait made
        // short, which only a test does), it goes now, and the slots after it keep their spacing.
        const early = nextGo(carried) - at;
        bookings.set(carried.key, early > inlineMs ? { ...carried, first: carried.first - early } : { ...carried });
      }
      return storage.run({ bookings, calls: step.calls ?? {}, turns: new Map(), heldFor: new Map() }, work);
    },

    of(rule) {
      const rate = rule.rate && rule.rate.limit > 0 ? rule.rate : undefined;
      return {
        vendor: rule.vendor,
        async take() {
          const ctx = storage.getStore();
          if (!rate) return;
          if (!ctx) {
            const { intervalMs, burstMs } = cadenceOf(rate);
            const wait = (await deps.schedule.book(rule.key, 1, intervalMs, now())) - burstMs - now();
            if (wait > personWaitMs) {
              throw new VendorError(rule.vendor, `${rule.vendor}: every call it allows for the next ${Math.ceil(wait / 1000)} s is taken`, {
                operation: 'take a slot',
                transient: true,
                throttled: true,
                retryAfterMs: wait,
              });
            }
            if (wait > 0) await sleep(wait);
            return;
          }
          return inTurn(ctx, rule.key, async () => {
            let booking = ctx.bookings.get(rule.key);
            if (!booking || booking.used >= booking.count) booking = await book(ctx, rule, rate, Math.max(1, ctx.calls[rule.vendor] ?? 1));
            const wait = nextGo(booking) - now();
            if (wait > inlineMs) throw new MustWait(rule.vendor, nextGo(booking) - WAKE_EARLY_MS, snapshot(ctx));
            if (wait > 0) await sleep(wait);
            booking.used += 1;
          });
        },
        async later(afterMs) {
          const ctx = storage.getStore();
          const until = now() + (afterMs ?? unhintedMs);
          // Outside a step, every caller of the credential waits for the vendor too; this call's retries wait as the vendor said.
          if (!ctx) {
            if (rate) await deps.schedule.holdUntil(rule.key, until + cadenceOf(rate).burstMs);
            return;
          }
          if (!rate) throw new MustWait(rule.vendor, until, snapshot(ctx));
          return inTurn(ctx, rule.key, async () => {
            // Every run of this credential waits for the vendor; this step then books again after the hold, once:
            // the slots it had not used, and one for the refused call.
            const left = ctx.bookings.get(rule.key);
            await deps.schedule.holdUntil(rule.key, until + cadenceOf(rate).burstMs);
            const booking = await book(ctx, rule, rate, left ? left.count - left.used + 1 : Math.max(1, ctx.calls[rule.vendor] ?? 1));
            // Its slot is after the vendor's "later": woken a little before it, the step waits for the slot itself.
            const wait = new MustWait(rule.vendor, Math.max(until - WAKE_EARLY_MS, nextGo(booking) - WAKE_EARLY_MS), snapshot(ctx));
            ctx.heldFor.set(rule.key, wait);
            throw wait;
          });
        },
      };
    },
  };
}
