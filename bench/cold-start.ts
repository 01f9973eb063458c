// Cold starts: every packaged function, each in a fresh Node process that
// loads its bundle and answers one real request, against two floors measured
// beside it: the empty handler (Node itself), and the function's same-I/O
// floor, a bare handler that makes exactly the requests the function's first
// call made (captured from the function itself, once, before the rounds).
// Each round runs every function once, beside its floors (see the rounds
// below), so a noisy moment hits a function and its floors alike.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PackagedFunction } from './build.ts';
import type { CapturedRequest } from './fixtures/same-io-handler.ts';
import type { HttpStack } from './fixtures/sdk-floor/http.ts';
import { supabaseCallFor } from './fixtures/sdk-floor/supabase-calls.ts';
import { catalog } from '../lib/api/catalog.ts';
import { eventSchemaOf } from '../lib/http/event-schema.ts';
import { runProbe } from './probe.ts';
import { probeRequest } from './requests.ts';
import type { Scenario } from './scenario.ts';
import { median, ratioInterval, round, shuffled, type RoundSample } from './stats.ts';

export interface ColdStartSample {
  bootMs: number;
  importMs: number;
  firstCallMs: number;
  totalMs: number;
  wallMs: number;
  answer: string;
  requests?: CapturedRequest[];
}

interface Timing {
  importMs: number;
  firstCallMs: number;
  totalMs: number;
}

export interface ColdStartFigure extends Timing {
  key: string;
  bundleBytes: number;
  zipBytes: number;
  request: string;
  answers: string[];
  /** What its first call asked of the outside world, e.g. "3 × dynamodb, 1 × supabase". */
  io: string;
  /** Its floor: the empty handler when it makes no request, else its same-I/O floor. */
  floor: Timing & { kind: 'empty handler' | 'same-I/O floor'; bundleBytes: number };
  /** The same requests, made with the fixed packages' clients (bench/fixtures/sdk-floor/); functions that use one only. */
  sdkFloor?: Timing & {
    clients: string;
    bundleBytes: number;
    ratioToSameIo: number;
    /** Where that ratio lies, 95% bootstrap interval over the rounds: a budget it proves unmeetable is under all of it. */
    ratioInterval: [number, number];
  };
  ratioToEmpty: number;
  ratio: number;
  budget: number;
}

/** The same function (or a stand-in) built or run another way, against the function as shipped (or the empty handler). */
export interface Variant {
  label: string;
  bundle: string;
  bundleBytes: number;
  /** The function it is a variant of; none: a stand-in compared with the empty handler. */
  of?: PackagedFunction;
  env?: Record<string, string>;
  /** Run once before the rounds (e.g. to write a compile cache). */
  prepare?: (probe: () => Promise<void>) => Promise<void>;
}

export interface VariantFigure extends Timing {
  label: string;
  of: string;
  bundleBytes: number;
  /** Against the function as shipped (or the empty handler), in the same rounds. */
  ratio: number;
}

/** A timed probe that failed or hung, with the requests it was replaying (for a floor). */
export interface ProbeFailure {
  key: string;
  message: string;
  requests?: string[];
}

export interface ColdStarts {
  /** Every timed run's total, by job: [round, ms], so that any figure or interval can be computed again. */
  runs: Record<string, RoundSample[]>;
  floor: Timing & { bundleBytes: number; samples: number };
  failures: ProbeFailure[];
  functions: ColdStartFigure[];
  variants: VariantFigure[];
}

/** Functions that make no request: held to the empty handler itself. */
export const WITHOUT_IO = ['health', 'healthz', 'openapi', 'not-found'];
export const BUDGET = { withoutIo: 1.3, sameIo: 1.5 };

/** Builds (once) the fixed-SDK floor carrying these clients, e.g. ["dynamodb", "states", "supabase"]. */
export type SdkFloorBuilder = (clients: string[], http?: HttpStack) => Promise<{ bundle: string; bundleBytes: number }>;

/** The fixed middy packages an HTTP function's route needs (bench/fixtures/sdk-floor/http.ts); none for a step. */
export function httpStackOf(fn: Pick<PackagedFunction, 'route'>): HttpStack | undefined {
  if (!fn.route) return undefined;
  const spec = catalog.find((r) => r.method === fn.route!.method && r.path === fn.route!.path);
  if (!spec) return { json: false, validates: false };
  return { json: spec.body !== undefined && !spec.rawBody, validates: eventSchemaOf(spec) !== undefined };
}

/**
 * Where the fixed vendor packages that the floor only loads send their
 * requests: the setting naming the base URL, and the path their API continues
 * with there. Locally every vendor is one emulator origin, so the base alone
 * would take a Stripe call for Resend too (and the floor would load packages
 * the function never uses). Supabase Auth's requests count only when a
 * supabase-js call sends them (a health check, a bare GET, needs no SDK).
 */
const VENDOR_APIS = {
  stripe: { setting: 'STRIPE_API_BASE', path: '/v1/' },
  resend: { setting: 'RESEND_BASE_URL', path: '/' },
} as const;

/**
 * The clients a function's first call used, as the fixed-SDK floor makes
 * them: AWS services from each request's SigV4 scope ("dynamodb", "states"),
 * fixed vendor packages from the API a request went to.
 */
export function clientsOf(requests: Pick<CapturedRequest, 'method' | 'url' | 'headers' | 'body'>[], env: Record<string, string>): string[] {
  const clients = new Set<string>();
  for (const [i, r] of requests.entries()) {
    const aws = awsServiceOf(r);
    if (aws) clients.add(aws);
    // The second request of a call that sends two (PUT /user after setSession's GET) has no call of its own.
    if (supabaseCallFor(requests.slice(i), env.SUPABASE_URL)) clients.add('supabase');
    for (const [vendor, api] of Object.entries(VENDOR_APIS)) {
      const base = env[api.setting]?.replace(/\/+$/, '');
      if (base && r.url.startsWith(base + api.path)) clients.add(vendor);
    }
  }
  return [...clients].sort();
}

const awsServiceOf = (r: Pick<CapturedRequest, 'headers'>) => /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\//.exec(r.headers.authorization ?? '')?.[1];

export async function measureColdStarts(options: {
  scenario: Scenario;
  functions: PackagedFunction[];
  emptyBundle: string;
  emptyBundleBytes: number;
  sameIoBundle: string;
  sameIoBundleBytes: number;
  sdkFloor: SdkFloorBuilder;
  rounds: number;
  variants: Variant[];
  envOf: (fn?: PackagedFunction) => Record<string, string>;
  progress: (line: string) => void;
  /** A folder: before the rounds, each function and its fixed-SDK floor runs once more, untimed, writing a V8 CPU profile there. */
  cpuProfiles?: string;
}): Promise<ColdStarts> {
  const { scenario, functions, rounds, envOf } = options;
  const samples = new Map<string, (ColdStartSample & { round: number })[]>();
  let currentRound = 0;
  const requests = new Map<string, string>();
  /** The event each function was last sent: an HTTP function's fixed-SDK floor gets it too, for its middy stack. */
  const events = new Map<string, unknown>();
  const EMPTY = '(empty handler)';

  const failures: ProbeFailure[] = [];
  const probe = async (key: string, bundle: string, event: unknown, env: Record<string, string>, record = true) => {
    const run = (limit: { timeoutMs?: number } = {}) =>
      runProbe<ColdStartSample>('cold-start.mjs', [pathToFileURL(bundle).href], { env, stdin: JSON.stringify(event), ...limit });
    if (!record) return run();
    // A timed run that fails or hangs (a cold start takes well under a second) is reported, not fatal: the rounds go on.
    try {
      const sample = await run({ timeoutMs: 20_000 });
      samples.set(key, [...(samples.get(key) ?? []), { ...sample, round: currentRound }]);
      return sample;
    } catch (error) {
      const requests = (event as { requests?: CapturedRequest[] }).requests?.map(describeRequest);
      failures.push({ key, message: (error as Error).message, ...(requests ? { requests } : {}) });
      options.progress(`cold starts: ${key} failed: ${(error as Error).message}${requests ? `; its requests: ${requests.join(' → ')}` : ''}`);
      return undefined;
    }
  };
  const functionProbe = async (key: string, fn: PackagedFunction, bundle: string, env: Record<string, string> = {}, record = true) => {
    const request = await probeRequest(scenario, fn);
    if (key === fn.key) {
      requests.set(fn.key, request.what);
      events.set(fn.key, request.event);
    }
    return probe(key, bundle, request.event, { ...envOf(fn), ...env }, record);
  };

  // What each function's first call asks of the outside world, from the function itself.
  const captured = new Map<string, CapturedRequest[]>();
  for (const fn of functions) {
    const sample = await functionProbe(fn.key, fn, fn.bundle, { BENCH_CAPTURE: '1' }, false);
    captured.set(fn.key, sample?.requests ?? []);
  }
  options.progress(`cold starts: captured the first call's requests of ${functions.length} functions`);
  for (const v of options.variants) await v.prepare?.(async () => void (v.of ? await functionProbe(v.label, v.of, v.bundle, v.env, false) : await probe(v.label, v.bundle, {}, { ...envOf(), ...v.env }, false)));

  const sameIoKey = (fn: PackagedFunction) => `same-I/O floor of ${fn.key}`;
  const sdkKey = (fn: PackagedFunction) => `fixed-SDK floor of ${fn.key}`;
  // Functions whose requests go through a fixed package's client get a fixed-SDK floor, with those clients.
  const sdkFloors = new Map<string, { clients: string; bundle: string; bundleBytes: number }>();
  for (const fn of functions) {
    const clients = clientsOf(captured.get(fn.key)!, envOf(fn));
    const http = httpStackOf(fn);
    const label = [...(http ? ['middy'] : []), ...clients].join('+');
    if (clients.length) sdkFloors.set(fn.key, { clients: label, ...(await options.sdkFloor(clients, http)) });
  }
  // An HTTP function's fixed-SDK floor answers the function's own event (its middy stack parses and checks it).
  const sdkFloorEvent = (fn: PackagedFunction) => ({ ...(fn.route ? (events.get(fn.key) as object) : {}), requests: captured.get(fn.key) });
  const sdkFloorOf = (fn: PackagedFunction) => sdkFloors.get(fn.key);
  if (options.cpuProfiles) {
    // Sampled every 100 µs; each profile's folder keeps the bundle and its source map, to read it by source file.
    const profiled = (name: string, bundle: string, env: Record<string, string>) => {
      const dir = join(options.cpuProfiles!, name);
      mkdirSync(dir, { recursive: true });
      for (const file of [bundle, `${bundle}.map`]) if (existsSync(file)) copyFileSync(file, join(dir, basename(file)));
      return { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-interval=100 --cpu-prof-dir="${dir}"`.trim() };
    };
    for (const fn of functions) {
      await functionProbe(fn.key, fn, fn.bundle, profiled(fn.key, fn.bundle, envOf(fn)), false);
      const sdk = sdkFloorOf(fn);
      if (sdk) await probe(sdkKey(fn), sdk.bundle, sdkFloorEvent(fn), profiled(`${fn.key}.fixed-sdk-floor`, sdk.bundle, envOf(fn)), false);
    }
    options.progress(`cold starts: a CPU profile of each function and its fixed-SDK floor in ${options.cpuProfiles}`);
  }
  // Each round runs every function beside its floors: one group per function (the
  // function, its same-I/O floor, its fixed-SDK floor and an empty handler), the
  // groups in a shuffled order and each group's runs shuffled too. A ratio is then
  // of runs made within a second of each other, so the machine's slower and faster
  // moments fall on both sides of it, and its interval resamples whole rounds
  // (ratioInterval in ./stats.ts). A run that starts an execution sets the local
  // stack's Step Functions to work on it; the next run waits until that is done,
  // so that no run is timed beside the stack's work.
  const startsExecutions = (fn: PackagedFunction) => captured.get(fn.key)!.some((r) => awsServiceOf(r) === 'states');
  type Job = { key: string; run: () => Promise<unknown> };
  const emptyJob: Job = { key: EMPTY, run: () => probe(EMPTY, options.emptyBundle, {}, envOf()) };
  const groups: { jobs: Job[]; settle: boolean }[] = [
    ...functions.map((fn) => ({
      jobs: [
        { key: fn.key, run: () => functionProbe(fn.key, fn, fn.bundle) },
        ...(captured.get(fn.key)!.length > 0 ? [{ key: sameIoKey(fn), run: () => probe(sameIoKey(fn), options.sameIoBundle, { requests: captured.get(fn.key) }, envOf(fn)) }] : []),
        ...(sdkFloorOf(fn) ? [{ key: sdkKey(fn), run: () => probe(sdkKey(fn), sdkFloorOf(fn)!.bundle, sdkFloorEvent(fn), envOf(fn)) }] : []),
        emptyJob,
      ],
      settle: startsExecutions(fn),
    })),
    ...options.variants.map((v) => ({
      jobs: [{ key: v.label, run: () => (v.of ? functionProbe(v.label, v.of, v.bundle, v.env) : probe(v.label, v.bundle, {}, { ...envOf(), ...v.env })) }, emptyJob],
      settle: v.of ? startsExecutions(v.of) : false,
    })),
  ];
  await options.scenario.settle();
  for (let r = 1; r <= rounds; r++) {
    currentRound = r;
    const waitedFor: string[] = [];
    for (const group of shuffled(groups)) {
      for (const job of shuffled(group.jobs)) {
        await job.run();
        if (group.settle && (await options.scenario.settle())) waitedFor.push(job.key);
      }
    }
    options.progress(`cold starts: round ${r}/${rounds}${waitedFor.length ? `; waited for the executions these runs started: ${waitedFor.join(', ')}` : ''}`);
  }

  const timing = (key: string): Timing => {
    const mine = samples.get(key) ?? [];
    return {
      importMs: round(median(mine.map((s) => s.importMs))),
      firstCallMs: round(median(mine.map((s) => s.firstCallMs))),
      totalMs: round(median(mine.map((s) => s.totalMs))),
    };
  };
  const runs: Record<string, RoundSample[]> = Object.fromEntries([...samples].map(([key, list]) => [key, list.map((s) => [s.round, round(s.totalMs)] as const)]));
  const empty = timing(EMPTY);
  return {
    runs,
    floor: { ...empty, bundleBytes: options.emptyBundleBytes, samples: samples.get(EMPTY)!.length },
    failures,
    functions: functions
      .map((fn) => {
        const own = timing(fn.key);
        const io = captured.get(fn.key)!;
        const floor = io.length
          ? { ...timing(sameIoKey(fn)), kind: 'same-I/O floor' as const, bundleBytes: options.sameIoBundleBytes }
          : { ...empty, kind: 'empty handler' as const, bundleBytes: options.emptyBundleBytes };
        const withoutIo = WITHOUT_IO.includes(fn.key);
        const sdk = sdkFloorOf(fn);
        const sdkTiming = sdk && timing(sdkKey(fn));
        return {
          key: fn.key,
          bundleBytes: fn.bundleBytes,
          zipBytes: fn.zipBytes,
          request: requests.get(fn.key)!,
          answers: [...new Set((samples.get(fn.key) ?? []).map((s) => s.answer))],
          io: describeIo(io),
          ...own,
          floor,
          ...(sdk && sdkTiming ? { sdkFloor: { ...sdkTiming, clients: sdk.clients, bundleBytes: sdk.bundleBytes, ratioToSameIo: round(sdkTiming.totalMs / floor.totalMs), ratioInterval: ratioInterval(runs[sdkKey(fn)] ?? [], runs[sameIoKey(fn)] ?? []).map((n) => round(n)) as [number, number] } } : {}),
          ratioToEmpty: round(own.totalMs / empty.totalMs),
          ratio: round(own.totalMs / (withoutIo ? empty.totalMs : floor.totalMs)),
          budget: withoutIo ? BUDGET.withoutIo : BUDGET.sameIo,
        };
      })
      .sort((a, b) => b.ratio / b.budget - a.ratio / a.budget),
    variants: options.variants.map((v) => {
      const mine = timing(v.label);
      const base = v.of ? timing(v.of.key) : empty;
      return { label: v.label, of: v.of?.key ?? 'the empty handler', bundleBytes: v.bundleBytes, ...mine, ratio: round(mine.totalMs / base.totalMs) };
    }),
  };
}

/** One captured request, for a failure report: "dynamodb UpdateItem agency-backend-local-accounts", "fetch POST /auth/v1/token". */
function describeRequest(r: CapturedRequest): string {
  const target = r.headers['x-amz-target'];
  if (target) {
    const table = /"TableName":"([^"]+)"/.exec(r.body)?.[1];
    return `${target.split('.').pop()}${table ? ` ${table}` : ''}`;
  }
  return `${r.via} ${r.method} ${new URL(r.url).pathname}`;
}

/** "3 × dynamodb, 1 × 127.0.0.1:4001", by AWS service or host. */
function describeIo(requests: CapturedRequest[]): string {
  if (!requests.length) return 'none';
  const counts = new Map<string, number>();
  for (const r of requests) {
    const service = awsServiceOf(r);
    const name = service ?? `${r.via} ${new URL(r.url).pathname.split('/').slice(0, 3).join('/')}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${n} × ${name}`).join(', ');
}
