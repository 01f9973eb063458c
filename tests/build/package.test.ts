// `npm run package` builds the CloudFormation template offline, with no AWS
// credentials; this checks the template holds what serverless.yml declares
// (its functions made from the route catalog and the state machines' steps,
// infra/functions.ts) and that no function may touch every resource.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serviceFunctions } from '../../infra/functions.ts';
import { settingsReadBy } from '../../infra/settings-per-function.mjs';
import { stagingFolders } from '../../infra/zip-staging-cleanup.mjs';
import { stateMachines } from '../../statemachines/cloudformation.ts';
import { catalog } from '../../lib/api/catalog.ts';
import { keyKindOf, type KeyKind } from '../../lib/access/rules.ts';
import { hermetic } from '../../local/serverless-config.ts';
import { packaged, type Template } from '../support/packaged.ts';

const run = promisify(execFile);
let out: string;
let work: string;
let template: Template;
let packagerPid: number;
const declared = {
  ...(parse(readFileSync('serverless.yml', 'utf8'), { logLevel: 'silent' }) as { custom: { settings: Record<string, unknown> } }),
  functions: serviceFunctions(),
};
/** Credentials, keys and URLs that are secrets themselves (Slack's incoming webhook). */
const SECRET = /(_KEY|_TOKEN|_SECRET|^SLACK_WEBHOOK_URL)$/;
const secrets = Object.keys(declared.custom.settings).filter((name) => SECRET.test(name) && name !== 'SUPABASE_ANON_KEY');
const declaredResources: Template['Resources'] = Object.assign(
  {},
  ...readdirSync('infra')
    .filter((f) => f.endsWith('.yml'))
    .map((f) => (parse(readFileSync(join('infra', f), 'utf8'), { logLevel: 'silent' }) as Template).Resources),
);

beforeAll(async () => {
  // No credentials and no settings at all: packaging must not need them (built once per run, see the file).
  ({ out, work, template, packagerPid } = await packaged());
  // Six engineers share two cores: packaging 40 functions has taken over four minutes here.
}, 360_000);

const ofType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);

describe('the packaged template', () => {
  it('has a Lambda on Node 24 for every declared function, each zipped on its own', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(Object.keys(declared.functions).length);
    for (const [, fn] of functions) expect(fn.Properties.Runtime).toBe('nodejs24.x');
    const zips = readdirSync(out).filter((f) => f.endsWith('.zip'));
    expect(zips.sort()).toEqual(Object.keys(declared.functions).map((k) => `${k}.zip`).sort());
  });

  it('has every table and state machine infra/ declares, each machine with its definition', () => {
    const named = (type: string, key: string) => Object.values(declaredResources).filter((r) => r.Type === type).map((r) => String(r.Properties[key]).replace('${self:service}-${sls:stage}-', 'agency-backend-ci-'));
    const tables = named('AWS::DynamoDB::Table', 'TableName');
    const machines = named('AWS::StepFunctions::StateMachine', 'StateMachineName');
    expect(tables.length).toBeGreaterThanOrEqual(15);
    expect(machines.sort()).toEqual(Object.keys(stateMachines).map((name) => `agency-backend-ci-${name}`).sort());
    expect(ofType('AWS::DynamoDB::Table').map(([, t]) => t.Properties.TableName).sort()).toEqual(tables.sort());
    const built = ofType('AWS::StepFunctions::StateMachine');
    expect(built.map(([, m]) => m.Properties.StateMachineName).sort()).toEqual(machines.sort());
    for (const [, machine] of built) expect(JSON.stringify(machine.Properties.Definition ?? machine.Properties.DefinitionString)).toContain('"StartAt"');
  });

  it('lets browsers in from the portal and the dashboard: the same origins the functions allow', () => {
    const cors = ofType('AWS::ApiGatewayV2::Api')[0]![1].Properties.CorsConfiguration as Record<string, string[]>;
    expect(cors.AllowOrigins).toEqual(['http://localhost:3001', 'http://localhost:3000']);
  });

  it('lets the browser send every header our front ends use, and read the ones we expose', () => {
    const apis = ofType('AWS::ApiGatewayV2::Api');
    expect(apis).toHaveLength(1);
    const cors = apis[0]![1].Properties.CorsConfiguration as Record<string, string[]>;
    expect(cors.AllowHeaders).toEqual(expect.arrayContaining(['content-type', 'authorization', 'x-api-key', 'x-admin-key', 'x-correlation-id']));
    expect(cors.ExposeHeaders).toEqual(expect.arrayContaining(['x-correlation-id', 'retry-after', 'location']));
  });

  it('grants no function "*" on all resources', () => {
    const statements = ofType('AWS::IAM::Role').flatMap(([, role]) =>
      (role.Properties.Policies ?? []).flatMap((p: { PolicyDocument: { Statement: any[] } }) => p.PolicyDocument.Statement),
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      expect([s.Action].flat()).not.toContain('*');
      for (const r of [s.Resource].flat()) {
        // An ARN built with Fn::Join is checked as the text it joins to.
        const arn = typeof r === 'string' ? r : r?.['Fn::Join'] ? r['Fn::Join'][1].map((part: unknown) => (typeof part === 'string' ? part : '<ref>')).join(r['Fn::Join'][0]) : JSON.stringify(r);
        expect(arn).not.toBe('*');
        expect(arn).not.toMatch(/^arn:[^:]*:[a-z0-9-]+:[^:]*:[^:]*:\*$/);
      }
    }
  });
});

describe('packaging', () => {
  it('leaves none of the folders it zips from in the OS temp folder (serverless-esbuild leaves one per function)', () => {
    // Those of this run's `sls package` (its pid is in their names), whatever other packaging runs beside it.
    expect(stagingFolders(readdirSync(tmpdir()), Object.keys(declared.functions), packagerPid)).toEqual([]);
  });

  it('removes only the staging folders of this service that its own process made', () => {
    const entries = ['login-4242-1795770033963-512d21a0', 'login-4243-1795770033963-512d21a0', 'other-4242-1795770033963-512d21a0', 'login-4242-17957700339-512d21a0', 'package-abc'];
    expect(stagingFolders(entries, ['login', 'status'], 4242)).toEqual(['login-4242-1795770033963-512d21a0']);
  });
});

describe('the settings each function carries', () => {
  const environments = () =>
    new Map(
      ofType('AWS::Lambda::Function').map(([, fn]) => [
        String(fn.Properties.FunctionName).replace('agency-backend-ci-', ''),
        Object.keys(fn.Properties.Environment?.Variables ?? {}),
      ]),
    );
  const carrying = (name: string) => [...environments()].filter(([, names]) => names.includes(name)).map(([key]) => key).sort();

  it('gives health, healthz and openapi no secret at all', () => {
    expect(secrets.length).toBeGreaterThanOrEqual(15);
    for (const key of ['health', 'healthz', 'openapi', 'not-found']) expect(environments().get(key)!.filter((name) => secrets.includes(name)), key).toEqual([]);
  });

  it('gives each secret only to the functions whose code reads it', () => {
    const buildDir = join(work, '.build');
    for (const [key, fn] of Object.entries(declared.functions as Record<string, { handler: string }>)) {
      const code = readFileSync(join(buildDir, `${fn.handler.replace(/\.[^.]+$/, '')}.mjs`), 'utf8');
      expect(environments().get(key)!.filter((name) => name !== 'NODE_OPTIONS').sort(), key).toEqual(settingsReadBy(code, Object.keys(declared.custom.settings)).sort());
    }
    // What that means for the most dangerous ones:
    expect(carrying('STRIPE_SECRET_KEY')).toEqual(['billing-portal', 'checkout-redirect', 'checkout-session', 'status']);
    expect(carrying('STRIPE_WEBHOOK_SECRET')).toEqual(['payments-webhook']);
    expect(carrying('SUPABASE_SERVICE_ROLE_KEY')).toEqual(['erase-account', 'forgot-password', 'reset-password', 'signup', 'status', 'verify-email']);
    expect(carrying('CLICKUP_API_TOKEN')).toEqual(['archive-task-tool', 'erase-account', 'provision-task-tool', 'record-booking-task', 'status']);
    // Each service key goes only to the functions whose routes take it (a guard holds one kind of key).
    const takingKey = (...kinds: KeyKind[]) =>
      Object.entries(declared.functions as Record<string, { events?: { httpApi?: { method: string; path: string } | string }[] }>)
        .filter(([, fn]) => (fn.events ?? []).some((e) => typeof e.httpApi === 'object' && catalog.some((r) => typeof e.httpApi === 'object' && r.method === e.httpApi.method && r.path === e.httpApi.path && kinds.includes(keyKindOf(r.access)))))
        .map(([key]) => key)
        .sort();
    expect(carrying('INTERNAL_API_KEY')).toEqual(takingKey('internal', 'admin+internal'));
    expect(carrying('ADMIN_API_KEY')).toEqual(takingKey('admin', 'admin+internal'));
    // Only what sends e-mail reads the mail settings: not reading an account, its members, or a run.
    for (const fn of ['me', 'get-account', 'list-members', 'accept-invitation', 'onboarding-run']) expect(carrying('RESEND_API_KEY'), fn).not.toContain(fn);
  });
});

describe('the built bundles', () => {
  it('each load and initialise on their own, with no schema compiled at start and no built-in module imported as ESM', async () => {
    const buildDir = join(work, '.build');
    const env = {
      ...hermetic(process.env, {}),
      STAGE: 'ci',
      TABLE_PREFIX: 'ci-',
      PORTAL_URL: 'https://portal.example',
      DASHBOARD_URL: 'https://app.example',
      SUPABASE_URL: 'https://ref.supabase.example',
      SUPABASE_ANON_KEY: 'anon',
      AWS_REGION: 'eu-west-1',
      LOG_LEVEL: 'silent',
      ONBOARDING_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-onboarding',
      BOOKING_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-booking',
      PAYMENTS_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-payments',
      ENHANCED_ONBOARDING_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-enhanced-onboarding',
      CRAWLER_REFRESH_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-crawler-refresh',
      ONBOARDING_BATCH_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-onboarding-batch',
      OFFBOARDING_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-offboarding',
    };
    for (const [key, fn] of Object.entries(declared.functions as Record<string, { handler: string }>)) {
      const bundle = join(buildDir, `${fn.handler.replace(/\.[^.]+$/, '')}.mjs`);
      const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)}); if (typeof m.handler !== 'function') process.exit(3);`;
      const result: { code?: number; stderr?: string } = await run(process.execPath, ['--input-type=module', '-e', script], { env }).catch((e) => e);
      // The last line of a failure names the error; the rest is the minified bundle.
      expect(String(result.stderr ?? '').trim().split('\n').at(-1), key).toBe('');
      expect(result.code ?? 0, `${key}: its handler is not a function`).toBe(0);
    }
    // Node's built-in modules come through require(), never an ESM import (see builtinsThroughRequire).
    for (const fn of Object.values(declared.functions as Record<string, { handler: string }>)) {
      const code = readFileSync(join(buildDir, `${fn.handler.replace(/\.[^.]+$/, '')}.mjs`), 'utf8');
      expect(code.match(/(?:\bfrom|\bimport)\s*\(?\s*["'](?:node:)?(?:http|https|http2|crypto|timers|fs|net|tls)["']/g), fn.handler).toBeNull();
    }
    // The schema compiler stays out of every bundle: validators are precompiled.
    const signup = readFileSync(join(buildDir, 'functions/auth/signup.mjs'), 'utf8');
    expect(signup).not.toContain('ajv-formats-draft2019');
    expect(signup).not.toMatch(/strictSchema|compileAsync/);
    // The OpenAPI document is built and serialised at build time: its builder is not in the bundle, and the
    // document is there once, as the text served (the object form of the same export is dropped).
    const openapi = readFileSync(join(buildDir, 'functions/docs/openapi.mjs'), 'utf8');
    expect(openapi).toContain('{"openapi":"3.1.0"');
    expect(openapi.split('3.1.0')).toHaveLength(2);
    expect(openapi).not.toContain('buildOpenApi');
    // The not-found route carries the route table, not the catalog's schemas.
    const notFound = readFileSync(join(buildDir, 'functions/docs/not-found.mjs'), 'utf8');
    expect(notFound).toContain('/api/onboarding-v2');
    expect(notFound).not.toContain('maxLength');
  }, 120_000);

  // A module reached through a dynamic import() is bundled whole with everything it imports: an AWS SDK client's
  // index with every command it has (Step Functions': 37, about 22 KB). The service never creates an activity or
  // a backup, so a bundle naming those commands carries the whole client.
  it("carry only the AWS SDK commands their code sends, not a client's every command", () => {
    const buildDir = join(work, '.build');
    const whole = Object.values(declared.functions as Record<string, { handler: string }>)
      .filter((fn) => /"(CreateActivityCommand|CreateBackupCommand)"/.test(readFileSync(join(buildDir, `${fn.handler.replace(/\.[^.]+$/, '')}.mjs`), 'utf8')))
      .map((fn) => fn.handler);
    expect(whole).toEqual([]);
  });
});

