// Cold starts: every packaged function, each in a fresh Node process that
// loads its bundle and answers one real request, against an empty handler
// built the same way. Rounds run every function once in a shuffled order, the
// empty handler several times among them, so a noisy moment hits both alike.
import { pathToFileURL } from 'node:url';
import type { PackagedFunction } from './build.ts';
import { runProbe } from './probe.ts';
import { probeRequest } from './requests.ts';
import type { Scenario } from './scenario.ts';
import { median, round, shuffled } from './stats.ts';

export interface ColdStartSample {
  bootMs: number;
  importMs: number;
  firstCallMs: number;
  totalMs: number;
  wallMs: number;
  answer: string;
}

export interface Tier {
  name: string;
  budget: number;
  /** The packages that put the function in this tier. */
  because: string[];
}

export interface ColdStartFigure {
  key: string;
  tier: Tier;
  bundleBytes: number;
  zipBytes: number;
  request: string;
  answers: string[];
  importMs: number;
  firstCallMs: number;
  totalMs: number;
  ratio: number;
}

/** A design choice measured the other way: the same function built or run differently. */
export interface Variant {
  label: string;
  of: PackagedFunction;
  bundle: string;
  bundleBytes: number;
  env?: Record<string, string>;
}

export interface VariantFigure {
  label: string;
  of: string;
  bundleBytes: number;
  totalMs: number;
  /** Against the function as shipped, in the same rounds. */
  ratioToShipped: number;
}

export interface ColdStarts {
  floor: { bundleBytes: number; totalMs: number; importMs: number; samples: number };
  functions: ColdStartFigure[];
  variants: VariantFigure[];
}

const HEAVY_SDKS = ['stripe', '@supabase/supabase-js', '@supabase/auth-js'];
const OTHER_SERVICES = ['@aws-sdk/client-sfn', 'resend', 'parse5', 'csv-stringify', 'robots-parser', 'ipaddr.js'];

/**
 * The budgets: our HTTP stack and DynamoDB at most 1.3× the empty
 * handler; with Stripe or supabase-js at most 2×. A function with another
 * client (Step Functions, Resend, the crawler's parsers) has no budget of its
 * own in the issue; it is held to the 2× of an SDK-carrying function.
 */
export function tierOf(packages: string[]): Tier {
  const heavy = packages.filter((p) => HEAVY_SDKS.includes(p));
  if (heavy.length) return { name: 'Stripe or supabase-js', budget: 2, because: heavy };
  const other = packages.filter((p) => OTHER_SERVICES.includes(p));
  if (other.length) return { name: 'another client', budget: 2, because: other };
  const clients = packages.filter((p) => p.startsWith('@aws-sdk/client-'));
  return { name: clients.length ? 'HTTP stack + DynamoDB' : 'HTTP stack', budget: 1.3, because: clients };
}

export async function measureColdStarts(options: {
  scenario: Scenario;
  functions: PackagedFunction[];
  emptyBundle: string;
  emptyBundleBytes: number;
  rounds: number;
  variants: Variant[];
  envOf: (fn?: PackagedFunction) => Record<string, string>;
  progress: (line: string) => void;
}): Promise<ColdStarts> {
  const { scenario, functions, rounds, envOf } = options;
  const samples = new Map<string, ColdStartSample[]>();
  const requests = new Map<string, string>();
  const EMPTY = '(empty handler)';
  const floorEvery = 5;

  const probe = async (key: string, bundle: string, fn?: PackagedFunction, env?: Record<string, string>) => {
    let stdin = '{}';
    if (fn) {
      const request = await probeRequest(scenario, fn);
      if (key === fn.key) requests.set(fn.key, request.what);
      stdin = JSON.stringify(request.event);
    }
    const sample = await runProbe<ColdStartSample>('cold-start.mjs', [pathToFileURL(bundle).href], { env: { ...envOf(fn), ...env }, stdin });
    samples.set(key, [...(samples.get(key) ?? []), sample]);
  };

  type Job = { key: string; run: () => Promise<void> };
  const jobs: Job[] = [
    ...functions.map((fn) => ({ key: fn.key, run: () => probe(fn.key, fn.bundle, fn) })),
    ...options.variants.map((v) => ({ key: v.label, run: () => probe(v.label, v.bundle, v.of, v.env) })),
  ];
  for (let round = 1; round <= rounds; round++) {
    for (const [i, job] of shuffled(jobs).entries()) {
      if (i % floorEvery === 0) await probe(EMPTY, options.emptyBundle);
      await job.run();
    }
    options.progress(`cold starts: round ${round}/${rounds}`);
  }

  const floorSamples = samples.get(EMPTY)!;
  const floorTotal = median(floorSamples.map((s) => s.totalMs));
  return {
    floor: { bundleBytes: options.emptyBundleBytes, totalMs: round(floorTotal), importMs: round(median(floorSamples.map((s) => s.importMs))), samples: floorSamples.length },
    functions: functions
      .map((fn) => {
        const mine = samples.get(fn.key)!;
        const totalMs = median(mine.map((s) => s.totalMs));
        return {
          key: fn.key,
          tier: tierOf(fn.packages),
          bundleBytes: fn.bundleBytes,
          zipBytes: fn.zipBytes,
          request: requests.get(fn.key)!,
          answers: [...new Set(mine.map((s) => s.answer))],
          importMs: round(median(mine.map((s) => s.importMs))),
          firstCallMs: round(median(mine.map((s) => s.firstCallMs))),
          totalMs: round(totalMs),
          ratio: round(totalMs / floorTotal),
        };
      })
      .sort((a, b) => b.ratio - a.ratio),
    variants: options.variants.map((v) => {
      const totalMs = median(samples.get(v.label)!.map((s) => s.totalMs));
      const shipped = median(samples.get(v.of.key)!.map((s) => s.totalMs));
      return { label: v.label, of: v.of.key, bundleBytes: v.bundleBytes, totalMs: round(totalMs), ratioToShipped: round(totalMs / shipped) };
    }),
  };
}
