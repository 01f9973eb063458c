// Reads serverless.yml as the Serverless Framework resolves it (`sls print`),
// so the local stack creates exactly the tables and state machines AWS gets.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export const SLS_BIN = require.resolve('serverless/bin/serverless.js');

export interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
}

export interface ResolvedService {
  service: string;
  stage: string;
  region: string;
  functions: Record<string, { name?: string; handler: string }>;
  resources: Record<string, CfnResource>;
}

export async function resolveService(stage: string, env: NodeJS.ProcessEnv): Promise<ResolvedService> {
  const { stdout } = await run(process.execPath, [SLS_BIN, 'print', '--stage', stage, '--format', 'json'], {
    env,
    maxBuffer: 32 * 1024 * 1024,
  });
  const printed = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const resources: Record<string, CfnResource> = Object.assign(
    {},
    ...[printed.resources].flat().map((r: { Resources?: Record<string, CfnResource> }) => r?.Resources ?? {}),
  );
  return {
    service: printed.service,
    stage,
    region: printed.provider.region,
    functions: printed.functions ?? {},
    resources,
  };
}

/** The Lambda name Serverless gives a function: <service>-<stage>-<key>. */
export const functionName = (svc: ResolvedService, key: string) =>
  svc.functions[key]?.name ?? `${svc.service}-${svc.stage}-${key}`;

export { functionLogicalId } from '../statemachines/cloudformation.ts';

export function resourcesOfType(svc: ResolvedService, type: string): [string, CfnResource][] {
  return Object.entries(svc.resources).filter(([, r]) => r.Type === type);
}

/**
 * The settings a developer may give `npm start` in the shell, for a front end under development:
 * the rate limits (RATE_LIMIT_SIGNUP=5/600 to see production's), a vendor's rate limit
 * (CLICKUP_RATE_LIMIT=1000/60: the service paces to it, its emulator enforces it), CORS_EXTRA_ORIGINS
 * (its dev server's origin, e.g. http://localhost:5173), and DASHBOARD_URL or PORTAL_URL when the
 * front end itself is the dashboard or the portal (the stack's reference pages then leave that
 * address to it). The hermetic local stack takes nothing else from the shell; tests and the bench
 * pass none.
 */
export function shellSettings(parent: NodeJS.ProcessEnv): Record<string, string> {
  const allowed = (name: string) =>
    /^RATE_LIMIT_[A-Z_]+$/.test(name) ||
    /^[A-Z]+_RATE_LIMIT$/.test(name) ||
    ['CORS_EXTRA_ORIGINS', 'DASHBOARD_URL', 'PORTAL_URL', 'OFFBOARDING_GRACE_SECONDS'].includes(name);
  return Object.fromEntries(Object.entries(parent).filter((e): e is [string, string] => allowed(e[0]) && !!e[1]?.trim()));
}

/**
 * What `npm start` gives the service before the shell's settings (which win): on one machine every
 * client has the same address, so the limits counted per client IP, and per e-mail address, are
 * generous (production's five signups in ten minutes are reached by the walk-throughs alone), and a
 * refused client is told the setting to change. A cancelled subscription's client is offboarded after
 * two minutes, not fourteen days, so trying the life cycle locally takes minutes. The tests' stacks keep
 * production's limits.
 */
export const START_SETTINGS: Readonly<Record<string, string>> = {
  RATE_LIMIT_SIGNUP: '1000/60',
  RATE_LIMIT_LOGIN: '1000/60',
  RATE_LIMIT_LOGIN_FAILURES: '1000/60',
  RATE_LIMIT_FORGOT_PASSWORD: '1000/60',
  RATE_LIMIT_RESET_PASSWORD: '1000/60',
  RATE_LIMIT_PER_EMAIL: '1000/60',
  RATE_LIMIT_CHECKOUT_SESSION: '1000/60',
  RATE_LIMIT_ADVICE: 'This local stack allows {value} ({setting}); to change it, start the stack with {setting}=<count>/<seconds> npm start',
  OFFBOARDING_GRACE_SECONDS: '120',
};

/**
 * The local stack never inherits service settings from the shell or a .env
 * file (a developer's real keys must not leak into it, and tests must never
 * reach outside this machine): only the process basics pass through, every
 * setting serverless.yml reads is blanked (so dotenv cannot fill it), and then
 * the local values are set.
 */
export function hermetic(parent: NodeJS.ProcessEnv, local: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) {
    if (v !== undefined && /^(PATH|HOME|TMPDIR|TEMP|TMP|LANG|LC_.*|TERM|SHELL|USER|npm_.*)$/.test(k)) env[k] = v;
  }
  const yml = readFileSync(new URL('../serverless.yml', import.meta.url), 'utf8');
  for (const [, name] of yml.matchAll(/\$\{env:([A-Z0-9_]+)/g)) env[name!] = '';
  return { ...env, ...local };
}
