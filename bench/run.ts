// `npm run bench`: packages the service, starts the whole local stack, and
// measures cold starts, warm middleware overhead, onboarding end to end and
// webhook acknowledgement, each against its floor in the same run. Prints the
// report and writes it to bench/results/ (JSON and markdown). Never a test:
// figures are reported against budgets, nothing fails on them.
//
//   npm run bench                      everything (about ten minutes)
//   npm run bench -- --quick           fewer rounds, for a first look
//   npm run bench -- --only cold,warm  some parts (cold, warm, onboarding, webhooks)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hermetic } from '../local/serverless-config.ts';
import { buildLikeLambda, packageService, type PackagedFunction } from './build.ts';
import { measureColdStarts } from './cold-start.ts';
import { measureOnboarding } from './onboarding.ts';
import { budgets, markdown, type BenchResults } from './report.ts';
import { startScenario } from './scenario.ts';
import { measureWarm } from './warm.ts';
import { measureWebhooks } from './webhooks.ts';

const ROOT = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: 'cold,warm,onboarding,webhooks' },
    rounds: { type: 'string' },
  },
});
const parts = new Set(args.only.split(','));
const settings = {
  coldStartRounds: Number(args.rounds ?? (args.quick ? 3 : 10)),
  warmProcesses: args.quick ? 3 : 10,
  warmCalls: args.quick ? 2_000 : 10_000,
  onboardingRuns: args.quick ? 3 : 7,
  vendorLatencyMs: 100,
  webhookConcurrency: 50,
  webhookRounds: args.quick ? 3 : 8,
};

const work = join(ROOT, '.local', `bench-${process.pid}`);
const progress = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
const results: BenchResults = {
  startedAt: new Date().toISOString(),
  machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', platform: `${platform()} ${release()}` },
  settings,
};

try {
  progress('building the floors (empty, bare and stacked handlers) as the service is built');
  const emptyBundle = join(work, 'floors/empty-handler.mjs');
  const emptyBundleBytes = await buildLikeLambda('bench/fixtures/empty-handler.ts', emptyBundle);
  const stackedBundle = join(work, 'floors/stacked-handler.mjs');
  await buildLikeLambda('bench/fixtures/stacked-handler.ts', stackedBundle, [{ method: 'POST', path: '/api/auth/forgot-password' }]);
  const bareBundle = join(work, 'floors/bare-handler.mjs');
  await buildLikeLambda('bench/fixtures/bare-handler.ts', bareBundle);

  progress('packaging the service (sls package)');
  const functions = await packageService(work, 'local', {});

  progress('starting the local stack and walking through the scenario');
  const scenario = await startScenario({ workFolder: join(work, 'esbuild-stack') });
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
      // The design choices behind the bundles, measured the other way on one DynamoDB step.
      const step = functions.find((f) => f.key === 'assign-slug')!;
      const sdkOutside = join(work, 'variants/assign-slug-sdk-outside.mjs');
      const variants = [
        {
          label: 'assign-slug with the AWS SDK left out of the bundle (loaded from node_modules, as the runtime\'s copy would be)',
          of: step,
          bundle: sdkOutside,
          bundleBytes: await buildLikeLambda('functions/onboarding/steps/assign-slug.ts', sdkOutside, [], { external: ['@aws-sdk/*'] }),
        },
        {
          label: 'assign-slug with --enable-source-maps',
          of: step,
          bundle: step.bundle,
          bundleBytes: step.bundleBytes,
          env: { NODE_OPTIONS: `${step.environment.NODE_OPTIONS ?? ''} --enable-source-maps`.trim() },
        },
      ];
      progress(`cold starts: ${functions.length} functions and ${variants.length} alternatives × ${settings.coldStartRounds} rounds`);
      results.coldStarts = await measureColdStarts({ scenario, functions, variants, emptyBundle, emptyBundleBytes, rounds: settings.coldStartRounds, envOf, progress });
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
      progress(`webhook acknowledgement, ${settings.webhookConcurrency} concurrent duplicates`);
      results.webhooks = await measureWebhooks(scenario, { concurrency: settings.webhookConcurrency, rounds: settings.webhookRounds });
    }
  } finally {
    await scenario.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
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
