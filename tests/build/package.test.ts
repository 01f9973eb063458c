// `npm run package` builds the CloudFormation template offline, with no AWS
// credentials; this checks the template holds what serverless.yml declares
// and that no function may touch every resource.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { hermetic, SLS_BIN } from '../../local/serverless-config.ts';

const run = promisify(execFile);
const out = mkdtempSync(join(tmpdir(), 'package-'));
const work = `.local/esbuild-package-${process.pid}`;

interface Template {
  Resources: Record<string, { Type: string; Properties: Record<string, any> }>;
}
let template: Template;
const declared = parse(readFileSync('serverless.yml', 'utf8'), { logLevel: 'silent' }) as { functions: Record<string, unknown> };

beforeAll(async () => {
  await run(process.execPath, [SLS_BIN, 'package', '--stage', 'ci', '--package', out], {
    // No credentials and no settings at all: packaging must not need them.
    env: { ...hermetic(process.env, {}), HOME: out, ESBUILD_WORK_FOLDER: work, SLS_TELEMETRY_DISABLED: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
}, 120_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const ofType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);

describe('the packaged template', () => {
  it('has a Lambda on Node 24 for every declared function, each zipped on its own', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(Object.keys(declared.functions).length);
    for (const [, fn] of functions) expect(fn.Properties.Runtime).toBe('nodejs24.x');
    const zips = readdirSync(out).filter((f) => f.endsWith('.zip'));
    expect(zips.sort()).toEqual(Object.keys(declared.functions).map((k) => `${k}.zip`).sort());
  });

  it('has every table and state machine of the design', () => {
    const tables = ofType('AWS::DynamoDB::Table').map(([, t]) => t.Properties.TableName);
    for (const name of ['accounts', 'members', 'integrations', 'verification_tokens']) {
      expect(tables).toContain(`agency-backend-ci-${name}`);
    }
    for (const [, machine] of ofType('AWS::StepFunctions::StateMachine')) {
      expect(machine.Properties.Definition).toBeTypeOf('object');
    }
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
      const resources = [s.Resource].flat();
      expect(resources).not.toContain('*');
      for (const r of resources) if (typeof r === 'string') expect(r).not.toMatch(/^arn:aws:[a-z0-9-]+:[^:]*:[^:]*:\*$/);
    }
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
      ENHANCED_ONBOARDING_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-enhanced-onboarding',
      CRAWLER_REFRESH_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-ci-crawler-refresh',
    };
    for (const [key, fn] of Object.entries(declared.functions as Record<string, { handler: string }>)) {
      const bundle = join(buildDir, `${fn.handler.replace(/\.[^.]+$/, '')}.mjs`);
      const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)}); if (typeof m.handler !== 'function') process.exit(3);`;
      const { stderr } = await run(process.execPath, ['--input-type=module', '-e', script], { env }).catch((e) => e);
      // The last line of a failure names the error; the rest is the minified bundle.
      expect(String(stderr ?? '').trim().split('\n').at(-1), key).toBe('');
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
    // The OpenAPI document is built at build time: its builder is not in the bundle.
    const openapi = readFileSync(join(buildDir, 'functions/docs/openapi.mjs'), 'utf8');
    expect(openapi).toContain('"openapi":"3.1.0"');
    expect(openapi).not.toContain('buildOpenApi');
  }, 120_000);
});

