// What the bench measures is what AWS gets: the service is packaged with
// `sls package` (the same zips and bundles a deploy uploads), and the bench's
// own handlers (the floors each figure is compared with) are built by esbuild
// with exactly the options and plugins serverless.yml gives serverless-esbuild.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { parse } from 'yaml';
import { serviceFunctions } from '../infra/functions.ts';
import { buildTimeValues, builtinsThroughRequire, credentialsFromEnvironment, precompiledValidators } from '../infra/esbuild-plugins.mjs';
import { hermetic, SLS_BIN } from '../local/serverless-config.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

export interface DeclaredFunction {
  handler: string;
  events?: { httpApi?: { method: string; path: string } | string }[];
}

export interface PackagedFunction {
  key: string;
  /** The bundle the zip holds, as built (kept by serverless-esbuild's keepOutputDirectory). */
  bundle: string;
  bundleBytes: number;
  zipBytes: number;
  /** The npm packages the bundle holds (from its source map). */
  packages: string[];
  /** The environment the template gives this Lambda. */
  environment: Record<string, string>;
  route?: { method: string; path: string };
}

/** `sls package` into work/, for the given stage; every function with its bundle, zip and environment. */
export async function packageService(work: string, stage: string, settings: Record<string, string>): Promise<PackagedFunction[]> {
  const out = join(work, 'package');
  // serverless-esbuild takes its work folder relative to the service.
  const esbuildWork = join(work, 'esbuild');
  await run(process.execPath, [SLS_BIN, 'package', '--stage', stage, '--package', out], {
    cwd: ROOT,
    env: { ...hermetic(process.env, settings), ESBUILD_WORK_FOLDER: relative(ROOT, esbuildWork), SLS_TELEMETRY_DISABLED: '1' },
    maxBuffer: 32 * 1024 * 1024,
  });
  const template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, any> }>;
  };
  const lambdas = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
  const declared = declaredFunctions();
  return Object.entries(declared).map(([key, fn]) => {
    const bundle = join(esbuildWork, '.build', `${fn.handler.replace(/\.[^.]+$/, '')}.mjs`);
    const lambda = lambdas.find((l) => String(l.Properties.FunctionName).endsWith(`-${stage}-${key}`));
    if (!lambda) throw new Error(`The template has no Lambda for ${key}`);
    const http = fn.events?.map((e) => e.httpApi).find((h) => typeof h === 'object');
    return {
      key,
      bundle,
      bundleBytes: statSync(bundle).size,
      zipBytes: statSync(join(out, `${key}.zip`)).size,
      packages: packagesIn(`${bundle}.map`),
      environment: literalEnvironment(lambda.Properties.Environment?.Variables ?? {}),
      ...(http && typeof http === 'object' ? { route: { method: http.method.toUpperCase(), path: http.path } } : {}),
    };
  });
}

/** Every function of the service: those made from the catalog and the state machines' steps, and serverless.yml's own. */
export function declaredFunctions(): Record<string, DeclaredFunction> {
  return serviceFunctions();
}

/**
 * Builds a bench handler as serverless-esbuild builds the service's: the
 * options of serverless.yml custom.esbuild and the same plugins. `routes`
 * are the routes it serves, so its request validators are precompiled too.
 */
export async function buildLikeLambda(
  entry: string,
  outfile: string,
  routes: { method: string; path: string }[] = [],
  overrides: { external?: string[]; defaultCredentialChain?: boolean; esmBuiltins?: boolean; runtimeValidators?: boolean; runtimeValues?: boolean } = {},
): Promise<number> {
  const yml = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as { custom: { esbuild: Record<string, any> } };
  const o = yml.custom.esbuild;
  mkdirSync(resolve(outfile, '..'), { recursive: true });
  const functions = { bench: { handler: `${entry.replace(/\.[^.]+$/, '')}.handler`, events: routes.map((r) => ({ httpApi: r })) } };
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: o.bundle,
    minify: o.minify,
    keepNames: o.keepNames,
    sourcemap: o.sourcemap,
    target: o.target,
    platform: o.platform,
    format: o.format,
    mainFields: o.mainFields,
    banner: o.banner,
    external: overrides.external ?? o.external,
    plugins: [
      ...(overrides.runtimeValidators ? [] : [precompiledValidators(functions)]),
      ...(overrides.esmBuiltins ? [] : [builtinsThroughRequire()]),
      ...(overrides.defaultCredentialChain ? [] : [credentialsFromEnvironment()]),
      ...(overrides.runtimeValues ? [] : [buildTimeValues()]),
    ],
    logLevel: 'error',
  });
  return statSync(outfile).size;
}

/** The npm packages a bundle was built from, read off its source map. */
function packagesIn(mapFile: string): string[] {
  const { sources } = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[] };
  const names = new Set<string>();
  for (const source of sources) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
    if (match) names.add(match[1]!);
  }
  return [...names].sort();
}

/** The template's values that are plain strings (the local stage has no CloudFormation functions in them). */
function literalEnvironment(variables: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(variables).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
