// One origin for every external vendor the service talks to. Each emulator
// answers the paths our adapters call, as the vendor does, and records what it
// was asked to do. The host adds the /_local conveniences:
//   GET    /_local/<kind>   what was recorded (emails, chat, crm, tasks, storage, payments, ...)
//   DELETE /_local          forget everything recorded, and every fault
//   POST   /_local/faults   { vendor, mode: fail|throttle|hang|lose-answer, count?, match?, retryAfterSeconds? }
//                           count: how many calls (default 1), or "always": every call until the faults are cleared
//                           lose-answer: the call is done, then its answer never comes (as a timeout after the vendor acted)
//                           a vendor may add modes of its own (faultModes), e.g. Dropbox's write-contention
//   DELETE /_local/faults   clear faults only (recordings, the request log and latency stay)
//   POST   /_local/latency  { vendor, ms }: a fixed delay on every call (for benchmarks)
//   GET    /_local/requests?vendor=&match=   every vendor call, with the fault it met (newest last)
//   DELETE /_local/requests  forget that log
//   GET    /_local/limits   each vendor's rate limit as enforced now, and its counts
//   POST   /_local/limits   { vendor, limit, windowSeconds } or { vendor, limit: null }: change it (tests)
// A vendor that publishes a rate limit (rateLimit) has it enforced here, per
// subject (token, team, webhook), in fixed windows that open at a subject's
// first call: past the limit, its calls get the vendor's own 429.
//   GET    /                the local console: a mailbox and readable lists of the above (console.ts)
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { ServiceView } from '../service-view.ts';
import { consoleMain, consolePage, type ConsoleData } from './console.ts';

export type FaultMode = 'fail' | 'throttle' | 'hang' | 'lose-answer';
/** A fault only one vendor knows: what a call it hits gets (`next` runs the vendor's own handler). */
export type VendorFault = (c: Context, next: () => Promise<void>, fault: Fault) => Promise<Response>;

export interface Fault {
  vendor: string;
  /** A FaultMode, or one of the vendor's faultModes. */
  mode: FaultMode | (string & {});
  /** How many more matching calls it affects; "always": every one until the faults are cleared. */
  remaining: number | 'always';
  /** Only calls whose path or body contains this string (lets parallel tests aim at their own data). */
  match?: string;
  retryAfterSeconds: number;
}

/** Calls per window. */
export interface Rate {
  limit: number;
  windowSeconds: number;
}

/** A vendor's published rate limit, as the host enforces it for the emulator. */
export interface VendorRateLimit {
  /** The service setting that carries this vendor's limit (the same value paces the service), e.g. CLICKUP_RATE_LIMIT. */
  setting: string;
  /** What the vendor publishes for its common plans; null when it publishes none (nothing enforced unless set). */
  published: Rate | null;
  /** Whose count a call goes to (a token, a team, a webhook); undefined: not counted (e.g. no credential). */
  subject(c: Context): string | undefined | Promise<string | undefined>;
  /** The headers the vendor sends with an answer it counted, 429s included. */
  headers?(window: { limit: number; remaining: number; resetAt: number }): Record<string, string>;
  /**
   * A vendor that documents short bursts over its rate (rather than windows): up to this many calls
   * at once, then the rate (a token bucket refilled at limit per window). Without it, fixed windows.
   */
  burst?: number;
}

export interface VendorEmulator {
  /** The name used by faults and latency, e.g. "clickup". */
  vendor: string;
  /** Path prefixes this vendor answers under. */
  prefixes: string[];
  app: Hono;
  /** Recording kinds this vendor serves at /_local/<kind>. */
  records: Record<string, () => unknown>;
  /** A 5xx in the vendor's own error shape. */
  failure(c: Context): Response;
  /** A 429 carrying the vendor's own retry header or body field. */
  throttle(c: Context, retryAfterSeconds: number): Response;
  reset(): void;
  /** Faults of this vendor's own, by mode name. */
  faultModes?: Record<string, VendorFault>;
  /** The rate limit the vendor publishes, enforced by the host. */
  rateLimit?: VendorRateLimit;
  /** Where this emulator knowingly answers otherwise than the real vendor, and why. */
  differences?: readonly string[];
  /** Plain JSON state, persisted between runs of `npm start`. */
  dump(): unknown;
  load(state: unknown): void;
}

export interface EmulatorHost {
  url: string;
  /** Adds a vendor emulator (before or after start). */
  register(emulator: VendorEmulator): void;
  /** Enforces this limit on the vendor's calls from now on (null: none), in place of what it publishes. */
  setLimit(vendor: string, rate: Rate | null): void;
  stop(): Promise<void>;
}

const HANG_LIMIT_MS = 5 * 60_000;
const REQUEST_LOG_LIMIT = 20_000;

export interface LoggedRequest {
  vendor: string;
  method: string;
  path: string;
  at: number;
  /** The fault this call met, if one. */
  fault?: Fault['mode'];
  status?: number;
  /** Path, query and body, for matching. */
  text: string;
}

export async function startEmulatorHost(options: {
  port: number;
  stateFile?: string;
  /** The service's accounts and delivery log, for the console to say which account each record is for. */
  service?: () => Promise<ServiceView | undefined>;
}): Promise<EmulatorHost> {
  const vendors: VendorEmulator[] = [];
  let faults: Fault[] = [];
  let requests: LoggedRequest[] = [];
  const latency = new Map<string, number>();
  /** Limits set in place of the published ones, by vendor. */
  const limits = new Map<string, Rate | null>();
  /** The open window of each vendor's subject: when it opened and how many calls it counted. */
  let windows = new Map<string, { openedAt: number; count: number }>();
  let saveTimer: NodeJS.Timeout | undefined;
  const limitOf = (v: VendorEmulator): Rate | null => (limits.has(v.vendor) ? limits.get(v.vendor)! : (v.rateLimit?.published ?? null));

  const save = () => {
    if (!options.stateFile) return;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(flush, 200);
  };
  const flush = () => {
    if (!options.stateFile) return;
    mkdirSync(dirname(options.stateFile), { recursive: true });
    writeFileSync(options.stateFile, JSON.stringify(Object.fromEntries(vendors.map((v) => [v.vendor, v.dump()]))));
  };
  const saved: Record<string, unknown> =
    options.stateFile && existsSync(options.stateFile) ? JSON.parse(readFileSync(options.stateFile, 'utf8')) : {};

  const vendorFor = (path: string) =>
    vendors.find((v) => v.prefixes.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`)));

  const app = new Hono();

  // Local conveniences first, so no vendor prefix can shadow them.
  app.get('/_local/limits', (c) =>
    c.json(
      Object.fromEntries(
        vendors
          .filter((v) => v.rateLimit)
          .map((v) => [v.vendor, { setting: v.rateLimit!.setting, published: v.rateLimit!.published, enforced: limitOf(v), windows: windowsOf(v.vendor) }]),
      ),
    ),
  );
  app.post('/_local/limits', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { vendor?: string; limit?: number | null; windowSeconds?: number } | null;
    const vendor = vendors.find((v) => v.vendor === body?.vendor && v.rateLimit);
    const valid = body?.limit === null || (Number.isInteger(body?.limit) && body!.limit! > 0 && typeof body?.windowSeconds === 'number' && body.windowSeconds > 0);
    if (!vendor || !valid) {
      return c.json({ error: { code: 'invalid_limit', message: `Send { vendor, limit, windowSeconds } (limit null: none) for one of ${vendors.filter((v) => v.rateLimit).map((v) => v.vendor).join(', ')}` } }, 400);
    }
    setLimit(vendor.vendor, body!.limit === null ? null : { limit: body!.limit!, windowSeconds: body!.windowSeconds! });
    return c.json({ vendor: vendor.vendor, enforced: limitOf(vendor) });
  });
  app.get('/_local/:kind', (c) => {
    const kind = c.req.param('kind');
    if (kind === 'faults') return c.json(faults);
    if (kind === 'requests') {
      const vendor = c.req.query('vendor');
      const match = c.req.query('match');
      return c.json(
        requests
          .filter((r) => (!vendor || r.vendor === vendor) && (!match || r.text.includes(match)))
          .map(({ text, ...r }) => ({ ...r, text: text.slice(0, 2000) })),
      );
    }
    const source = vendors.find((v) => kind in v.records);
    if (!source) return c.json({ error: { code: 'unknown_kind', message: `Kinds: ${kinds().join(', ')}` } }, 404);
    return c.json(source.records[kind]!());
  });
  app.delete('/_local', (c) => {
    for (const v of vendors) v.reset();
    faults = [];
    requests = [];
    latency.clear();
    windows = new Map();
    save();
    return c.body(null, 204);
  });
  app.post('/_local/faults', async (c) => {
    const body = (await c.req.json().catch(() => null)) as (Partial<Fault> & { count?: unknown }) | null;
    const vendor = vendors.find((v) => v.vendor === body?.vendor);
    const modes: string[] = ['fail', 'throttle', 'hang', 'lose-answer', ...Object.keys(vendor?.faultModes ?? {})];
    const count = body?.count ?? 1;
    const countOk = count === 'always' || (typeof count === 'number' && Number.isInteger(count) && count > 0);
    if (!body || !vendor || !modes.includes(body.mode as string) || !countOk) {
      return c.json(
        {
          error: {
            code: 'invalid_fault',
            message: `vendor one of ${vendors.map((v) => v.vendor).join(', ')}; mode one of ${modes.join(', ')}; count a whole number above 0 (default 1) or "always"`,
          },
        },
        400,
      );
    }
    const fault: Fault = {
      vendor: body.vendor!,
      mode: body.mode!,
      remaining: count as number | 'always',
      match: typeof body.match === 'string' && body.match ? body.match : undefined,
      retryAfterSeconds: typeof body.retryAfterSeconds === 'number' ? body.retryAfterSeconds : 1,
    };
    faults.push(fault);
    return c.json(fault, 201);
  });
  app.delete('/_local/faults', (c) => {
    faults = [];
    return c.body(null, 204);
  });
  app.delete('/_local/requests', (c) => {
    requests = [];
    return c.body(null, 204);
  });
  app.post('/_local/latency', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { vendor?: string; ms?: number } | null;
    if (!body?.vendor || typeof body.ms !== 'number' || body.ms < 0) {
      return c.json({ error: { code: 'invalid_latency', message: 'Send { vendor, ms }' } }, 400);
    }
    if (body.ms === 0) latency.delete(body.vendor);
    else latency.set(body.vendor, body.ms);
    return c.json({ vendor: body.vendor, ms: body.ms });
  });
  app.get('/', async (c) => {
    const data: ConsoleData = {
      vendors: vendors.map(({ vendor, prefixes, differences }) => ({ vendor, prefixes, differences })),
      records: Object.fromEntries(vendors.flatMap((v) => Object.entries(v.records).map(([kind, read]) => [kind, read()]))),
      faults,
      latency: Object.fromEntries(latency),
      service: await options.service?.().catch((error: Error) => ({ error: error.message })),
    };
    c.header('cache-control', 'no-store');
    return c.html(c.req.query('part') === 'main' ? consoleMain(data) : consolePage(data));
  });

  // Faults and latency apply to every vendor call, and every call is logged.
  app.use('*', async (c, next) => {
    const vendor = vendorFor(c.req.path);
    if (!vendor) return next();
    const text = `${c.req.path}${new URL(c.req.url).search} ${await c.req.raw.clone().text()}`;
    const logged: LoggedRequest = { vendor: vendor.vendor, method: c.req.method, path: c.req.path, at: Date.now(), text };
    requests.push(logged);
    if (requests.length > REQUEST_LOG_LIMIT) requests.splice(0, requests.length - REQUEST_LOG_LIMIT);
    const delay = latency.get(vendor.vendor);
    if (delay) await new Promise((r) => setTimeout(r, delay));
    const fault = faults.find((f) => f.vendor === vendor.vendor && (!f.match || text.includes(f.match)));
    if (fault) {
      if (fault.remaining !== 'always') {
        fault.remaining -= 1;
        if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault);
      }
      logged.fault = fault.mode;
      const own = vendor.faultModes?.[fault.mode];
      if (own) {
        const res = await own(c, next, fault);
        logged.status = res.status;
        save();
        return res;
      }
      const answered = (res: Response) => ((logged.status = res.status), res);
      if (fault.mode === 'fail') return answered(vendor.failure(c));
      if (fault.mode === 'throttle') return answered(vendor.throttle(c, fault.retryAfterSeconds));
      if (fault.mode === 'lose-answer') {
        // The vendor does the work; the caller never hears of it.
        await next();
        logged.status = c.res.status;
        save();
      }
      await hang(c.req.raw.signal);
      return c.text('hung', 504);
    }
    const rate = limitOf(vendor);
    const subject = rate ? await vendor.rateLimit!.subject(c) : undefined;
    if (rate && subject !== undefined) {
      const id = `${vendor.vendor}|${subject}`;
      const at = Date.now();
      let window = windows.get(id);
      const burst = vendor.rateLimit!.burst;
      if (burst) {
        // A token bucket, kept as a window: `count` is the tokens spent, refilled at the rate since openedAt.
        const perToken = (rate.windowSeconds * 1000) / rate.limit;
        window ??= { openedAt: at, count: 0 };
        const refilled = Math.floor((at - window.openedAt) / perToken);
        window = { openedAt: window.openedAt + refilled * perToken, count: Math.max(0, window.count - refilled) };
        if (window.count === 0) window.openedAt = at;
        windows.set(id, window);
      } else if (!window || at >= window.openedAt + rate.windowSeconds * 1000) {
        windows.set(id, (window = { openedAt: at, count: 0 }));
      }
      const capacity = burst ?? rate.limit;
      const resetAt = burst ? window.openedAt + (rate.windowSeconds * 1000) / rate.limit : window.openedAt + rate.windowSeconds * 1000;
      const counted = (res: Response) => {
        const headers = vendor.rateLimit!.headers?.({ limit: rate.limit, remaining: Math.max(0, capacity - window.count), resetAt }) ?? {};
        for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
        return res;
      };
      if (window.count >= capacity) {
        logged.fault = 'rate-limit';
        logged.status = 429;
        return counted(vendor.throttle(c, (resetAt - at) / 1000));
      }
      window.count += 1;
      await next();
      counted(c.res);
    } else {
      await next();
    }
    logged.status = c.res.status;
    if (c.req.method !== 'GET') save();
  });

  function setLimit(vendor: string, rate: Rate | null) {
    limits.set(vendor, rate);
    for (const id of [...windows.keys()]) if (id.startsWith(`${vendor}|`)) windows.delete(id);
  }

  function windowsOf(vendor: string) {
    return [...windows.entries()].filter(([id]) => id.startsWith(`${vendor}|`)).map(([, w]) => ({ openedAt: new Date(w.openedAt).toISOString(), count: w.count }));
  }

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  const url = `http://localhost:${(server.address() as AddressInfo).port}`;

  function kinds() {
    return vendors.flatMap((v) => Object.keys(v.records));
  }

  return {
    url,
    setLimit,
    register(emulator) {
      vendors.push(emulator);
      if (saved[emulator.vendor] !== undefined) emulator.load(saved[emulator.vendor]);
      app.route('/', emulator.app);
    },
    stop: async () => {
      clearTimeout(saveTimer);
      flush();
      await new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}

function hang(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, HANG_LIMIT_MS);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
