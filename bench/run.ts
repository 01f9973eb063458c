// `npm run bench`: packages the service, starts the whole local stack, and
// measures cold starts, warm middleware overhead, onboarding end to end and
// webhook acknowledgement, each against its floor in the same run. Prints the
// report and writes it to bench/results/ (JSON and markdown). Never a test:
// figures are reported against budgets, nothing fails on them. Its options are
// in USAGE below (`npm run bench -- --help`).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { hermetic } from '../local/serverless-config.ts';
import { exitWithUsage, readCommandLine } from '../scripts/command-line.ts';
import { buildLikeLambda, packageService, type PackagedFunction } from './build.ts';
import { measureColdStarts, type SdkFloorBuilder, type Variant } from './cold-start.ts';
import { measureBurst } from './burst.ts';
import { measureOnboarding } from './onboarding.ts';
import { budgets, markdown, type BenchResults } from './report.ts';
import { startScenario } from './scenario.ts';
import { startSsmStandIn } from './ssm-stand-in.ts';
import { measureTimingGap } from './timing-gap.ts';
import { measureWarm } from './warm.ts';
import { measureWebhooks } from './webhooks.ts';

const ROOT = resolve(import.meta.dirname, '..');
const PARTS = ['cold', 'warm', 'onboarding', 'webhooks', 'gap', 'burst'];
const USAGE = `Usage: npm run bench -- [--quick] [--rounds <n>] [--only <parts>] [--functions <keys>] [--cpu-prof <dir>]

Packages the service, starts the local stack on free ports, and measures each part against
its floor; prints the report and writes it to bench/results/. Everything takes about thirteen
minutes on two cores.

  --quick             fewer rounds, for a first look
  --rounds <n>        cold-start rounds (default 20, 3 with --quick): more narrow the intervals
                      that decide whether a floor proves a budget unmeetable
  --only <parts>      some parts, comma-separated: ${PARTS.join(', ')} (default: all); without
                      cold and warm, nothing is packaged (e.g. --only gap); burst: fifty onboardings
                      submitted together, against the vendors' limits (scaled down), on a stack of its own
  --functions <keys>  with --only cold: cold starts of these functions only (no variants),
                      e.g. login,status
  --cpu-prof <dir>    also one untimed cold start of each function and its fixed-SDK floor
                      with a V8 CPU profile, written to <dir>
  -h, --help          this help`;
const args = readCommandLine({
  usage: USAGE,
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: PARTS.join(',') },
    rounds: { type: 'string' },
    functions: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const parts = new Set(args.only.split(','));
const unknownParts = [...parts].filter((part) => !PARTS.includes(part));
if (unknownParts.length) exitWithUsage(`--only: no part ${unknownParts.join(', ')} (parts: ${PARTS.join(', ')})`, USAGE);
if (args.rounds !== undefined && !/^[1-9][0-9]*$/.test(args.rounds)) exitWithUsage(`--rounds: '${args.rounds}' is no whole number above 0`, USAGE);
const settings = {
  coldStartRounds: Number(args.rounds ?? (args.quick ? 3 : 20)),
  warmProcesses: args.quick ? 3 : 10,
  warmCalls: args.quick ? 2_000 : 10_000,
  onboardingRuns: args.quick ? 3 : 7,
  vendorLatencyMs: 100,
  /** Deliveries timed per route in each webhook scenario: rounds of one scenario's batch until there are this many. */
  webhookDeliveries: args.quick ? 400 : 1200,
  timingGapPairs: args.quick ? 24 : 40,
  burstOnboardings: args.quick ? 20 : 50,
};

/**
 * The burst's vendor limits: Resend, Slack and Close at their published figures, ClickUp's 100 per token in a
 * window of 12 s instead of a minute, so fifty clients take a couple of minutes.
 */
const BURST_LIMITS = { CLICKUP_RATE_LIMIT: '100/12', RESEND_RATE_LIMIT: '5/1', SLACK_RATE_LIMIT: '1/1', CLOSE_RATE_LIMIT: '20/1' };

const work = join(ROOT, '.local', `bench-${process.pid}`);
const progress = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
const results: BenchResults = {
  startedAt: new Date().toISOString(),
  machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', platform: `${platform()} ${release()}`, loadAverage: loadavg() },
  settings,
};

/** Thrown when nothing is left to measure on the scenario's stack. */
class Done extends Error {}

// Set by Ctrl-C or a kill while the stack runs (below).
let interrupted = false;

// Only cold starts and the warm overhead measure bundles; the other parts need just the running stack.
const measuresBundles = parts.has('cold') || parts.has('warm');

try {
  const emptyBundle = join(work, 'floors/empty-handler.mjs');
  const stackedBundle = join(work, 'floors/stacked-handler.mjs');
  const bareBundle = join(work, 'floors/bare-handler.mjs');
  const sameIoBundle = join(work, 'floors/same-io-handler.mjs');
  let emptyBundleBytes = 0;
  let sameIoBundleBytes = 0;
  let functions: PackagedFunction[] = [];
  if (measuresBundles) {
    progress('building the floors (empty, bare, stacked, same-I/O and fixed-SDK handlers) as the service is built');
    emptyBundleBytes = await buildLikeLambda('bench/fixtures/empty-handler.ts', emptyBundle);
    await buildLikeLambda('bench/fixtures/stacked-handler.ts', stackedBundle, [{ method: 'POST', path: '/api/auth/forgot-password' }]);
    await buildLikeLambda('bench/fixtures/bare-handler.ts', bareBundle);
    sameIoBundleBytes = await buildLikeLambda('bench/fixtures/same-io-handler.ts', sameIoBundle);

    progress('packaging the service (sls package)');
    functions = await packageService(work, 'local', {});
  }

  if (parts.has('burst')) {
    progress(`burst: ${settings.burstOnboardings} onboardings at once, vendors at ${Object.values(BURST_LIMITS).join(', ')}`);
    results.burst = await measureBurst({ workFolder: relative(ROOT, join(work, 'esbuild-burst')), onboardings: settings.burstOnboardings, limits: BURST_LIMITS, progress });
  }
  if (![...parts].some((part) => part !== 'burst')) throw new Done();

  progress('starting the local stack and walking through the scenario');
  // Relative to the service, as serverless-esbuild takes its work folder.
  const scenario = await startScenario({ workFolder: relative(ROOT, join(work, 'esbuild-stack')) });
  // serverless-offline and its esbuild run in a process group of their own: a Ctrl-C or a kill of the bench
  // would leave them running (seen: an orphaned esbuild at full CPU), so the bench stops them first.
  const stopOn = (signal: NodeJS.Signals) =>
    process.once(signal, () => {
      interrupted = true;
      progress(`${signal}: stopping the local stack`);
      void scenario.close().finally(() => {
        rmSync(work, { recursive: true, force: true });
        process.exit(130);
      });
    });
  stopOn('SIGINT');
  stopOn('SIGTERM');
  try {
    const basics = hermetic(process.env, {});
    const envOf = (fn?: PackagedFunction): Record<string, string> => {
      const lambda = fn ?? functions[0]!;
      return {
        ...basics,
        ...lambda.environment,
        ...scenario.stack.env,
        LOG_LEVEL: lambda.environment.LOG_LEVEL || 'info',
        AWS_LAMBDA_FUNCTION_NAME: `agency-backend-local-${fn?.key ?? 'empty'}`,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      };
    };

    if (parts.has('cold')) {
      const ssm = await startSsmStandIn();
      try {
        const only = args.functions?.split(',');
        const unknown = only?.filter((key) => !functions.some((f) => f.key === key)) ?? [];
        if (unknown.length) throw new Error(`--functions: no function ${unknown.join(', ')}`);
        results.coldStarts = await measureColdStarts({
          scenario,
          functions: only ? functions.filter((f) => only.includes(f.key)) : functions,
          variants: only ? [] : await variants(functions, ssm.endpoint),
          emptyBundle,
          emptyBundleBytes,
          sameIoBundle,
          sameIoBundleBytes,
          sdkFloor: sdkFloorBuilder(join(work, 'floors')),
          rounds: settings.coldStartRounds,
          envOf,
          progress,
          ...(args['cpu-prof'] ? { cpuProfiles: resolve(args['cpu-prof']) } : {}),
        });
      } finally {
        await ssm.close();
      }
    }
    if (parts.has('warm')) {
      progress('warm overhead of the HTTP stack');
      const forgot = functions.find((f) => f.key === 'forgot-password')!;
      results.warm = await measureWarm({
        stackedBundle,
        bareBundle,
        env: { ...envOf(forgot), BENCH_ORIGIN: scenario.stack.env.PORTAL_URL! },
        processes: settings.warmProcesses,
        calls: settings.warmCalls,
      });
    }
    if (parts.has('onboarding')) {
      progress(`onboarding end to end, vendors delayed ${settings.vendorLatencyMs} ms`);
      results.onboarding = await measureOnboarding(scenario, { runs: settings.onboardingRuns, vendorLatencyMs: settings.vendorLatencyMs });
    }
    if (parts.has('webhooks')) {
      results.webhooks = [];
      for (const scenarioOf of [
        { name: 'duplicates' as const, requests: 50, concurrency: 50 },
        { name: 'distinct' as const, requests: 200, concurrency: 20 },
      ]) {
        progress(`webhook acknowledgement: ${scenarioOf.name}, ${scenarioOf.requests} at ${scenarioOf.concurrency} concurrent`);
        results.webhooks.push(await measureWebhooks(scenario, { ...scenarioOf, rounds: Math.ceil(settings.webhookDeliveries / scenarioOf.requests) }));
      }
    }
    if (parts.has('gap')) {
      progress(`forgot-password timing gap: ${settings.timingGapPairs} pairs, vendors at 80 ms`);
      results.timingGap = await measureTimingGap(scenario, { pairs: settings.timingGapPairs, vendorLatencyMs: 80 });
    }
  } finally {
    await scenario.close();
  }
} catch (error) {
  // Done: only the burst was asked for, so no scenario stack.
  if (!(error instanceof Done)) {
    if (!interrupted) throw error;
    // A part cut short by the stack stopping under it: the signal's handler ends the bench, with nothing written.
    await new Promise(() => {});
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The fixed-SDK floor for a set of clients (and an HTTP function's middy stack): an entry importing just their modules (bench/fixtures/sdk-floor/), built like the service, once. */
function sdkFloorBuilder(folder: string): SdkFloorBuilder {
  const built = new Map<string, Promise<{ bundle: string; bundleBytes: number }>>();
  // The clients that make requests (the others are only loaded and made): each module's export giving it.
  const REPLAYING: Record<string, string> = { dynamodb: 'dynamodbService', states: 'sfnService', supabase: 'supabaseService' };
  return (clients, http) => {
    const stack = http ? [`middy${http.json ? '-json' : ''}${http.validates ? '-validator' : ''}`] : [];
    const name = [...stack, ...clients].join('-');
    if (!built.has(name)) {
      const fixture = (client: string) => JSON.stringify(join(ROOT, 'bench/fixtures/sdk-floor', `${client}.ts`));
      const entry = join(folder, `sdk-floor-${name}.ts`);
      mkdirSync(folder, { recursive: true });
      const replaying = clients.filter((c) => REPLAYING[c]);
      const replay = `replayHandler([${replaying.map((c) => `${REPLAYING[c]}()`).join(', ')}])`;
      writeFileSync(
        entry,
        [
          `import { replayHandler } from ${fixture('replay')};`,
          ...(http ? [`import { httpStack } from ${fixture('http')};`] : []),
          ...clients.map((c) => (REPLAYING[c] ? `import { ${REPLAYING[c]} } from ${fixture(c)};` : `import ${fixture(c)};`)),
          `export const handler = ${http ? `httpStack(${replay}, ${JSON.stringify(http)})` : replay};`,
        ].join('\n'),
      );
      const bundle = entry.replace(/\.ts$/, '.mjs');
      built.set(name, buildLikeLambda(entry, bundle).then((bundleBytes) => ({ bundle, bundleBytes })));
    }
    return built.get(name)!;
  };
}

/** The design choices behind the bundles, and where secrets live, each measured the other way. */
async function variants(functions: PackagedFunction[], ssmEndpoint: string): Promise<Variant[]> {
  const of = (key: string) => functions.find((f) => f.key === key)!;
  const built = async (label: string, entry: string, overrides: Parameters<typeof buildLikeLambda>[3] = {}, fn?: PackagedFunction) => {
    const bundle = join(work, 'variants', `${label.replace(/\W+/g, '-')}.mjs`);
    return { label, bundle, bundleBytes: await buildLikeLambda(entry, bundle, [], overrides), ...(fn ? { of: fn } : {}) };
  };
  const step = of('assign-slug');
  const list: Variant[] = [
    await built('assign-slug with the AWS SDK left out of the bundle (loaded from node_modules, as the runtime\'s copy would be)', 'functions/onboarding/steps/assign-slug.ts', { external: ['@aws-sdk/*'] }, step),
    await built('assign-slug with the SDK\'s default credential chain (as before issue 16)', 'functions/onboarding/steps/assign-slug.ts', { defaultCredentialChain: true }, step),
    await built('assign-slug with Node\'s built-in modules imported as ES modules (no builtins-through-require)', 'functions/onboarding/steps/assign-slug.ts', { esmBuiltins: true }, step),
    await built('login with its request schema compiled by ajv at cold start (no precompiled validators)', 'functions/auth/login.ts', { runtimeValidators: true }, of('login')),
    await built('openapi with its document built at cold start (no build-time values)', 'functions/docs/openapi.ts', { runtimeValues: true }, of('openapi')),
    { label: 'assign-slug with --enable-source-maps', of: step, bundle: step.bundle, bundleBytes: step.bundleBytes, env: { NODE_OPTIONS: `${step.environment.NODE_OPTIONS ?? ''} --enable-source-maps`.trim() } },
  ];
  // The V8 compile cache, written by one run of the very bundle (its first call included) before the rounds.
  for (const key of ['assign-slug', 'payments-webhook', 'login', 'healthz']) {
    const fn = of(key);
    // In the bench's work folder, so it goes with it.
    const dir = mkdtempSync(join(work, `compile-cache-${key}-`));
    list.push({ label: `${key} with a V8 compile cache (NODE_COMPILE_CACHE, written by a run before)`, of: fn, bundle: fn.bundle, bundleBytes: fn.bundleBytes, env: { NODE_COMPILE_CACHE: dir }, prepare: (probe) => probe() });
  }
  // Where deployed secrets live: three secrets from the environment, or from SSM (Powertools Parameters) at cold start.
  list.push(await built('three secrets read from environment variables', 'bench/fixtures/secrets-from-env.ts'));
  list[list.length - 1]!.env = { BENCH_SECRET_A: 'a', BENCH_SECRET_B: 'b', BENCH_SECRET_C: 'c' };
  list.push(await built('three secrets read from SSM Parameter Store at cold start (Powertools Parameters, one GetParameters call)', 'bench/fixtures/secrets-from-ssm.ts'));
  list[list.length - 1]!.env = { AWS_ENDPOINT_URL_SSM: ssmEndpoint };
  // The techniques of docs/performance.md, each beside what it stands in for.
  list.push(await built('a clock in a named zone through the TZ switch (lib/time-zones.ts)', 'bench/fixtures/zones-by-switch.ts'));
  list.push(await built('a clock in a named zone through ICU\'s date formatter', 'bench/fixtures/zones-by-icu.ts'));
  list.push(await built('one GET through the transport over node:http (lib/integrations/http-transport.ts)', 'bench/fixtures/http-by-transport.ts'));
  list[list.length - 1]!.env = { BENCH_URL: ssmEndpoint };
  list.push(await built('one GET through Node\'s global fetch', 'bench/fixtures/http-by-fetch.ts'));
  list[list.length - 1]!.env = { BENCH_URL: ssmEndpoint };
  list.push(await built('two hundred SigV4 signatures with the service\'s SHA-256 (lib/sha256.ts)', 'bench/fixtures/signing.ts'));
  list.push(await built('two hundred SigV4 signatures with the SDK\'s default SHA-256', 'bench/fixtures/signing.ts'));
  list[list.length - 1]!.env = { BENCH_HASH: 'sdk' };
  return list;
}

const report = markdown(results);
const dir = join(ROOT, 'bench/results');
mkdirSync(dir, { recursive: true });
const stamp = results.startedAt.replace(/[:.]/g, '-');
const json = JSON.stringify({ ...results, budgets: budgets(results) }, null, 2);
for (const name of [`${stamp}.json`, 'latest.json']) writeFileSync(join(dir, name), json);
for (const name of [`${stamp}.md`, 'latest.md']) writeFileSync(join(dir, name), report);
console.log(report);
progress(`written to bench/results/${stamp}.{json,md} (and latest.*)`);
