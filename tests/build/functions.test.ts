// The service's functions are made from what declares them (infra/functions.ts):
// each route of the catalog gives its function and httpApi event, each step of a
// state machine its function; serverless.yml names no HTTP path. A route added
// to the catalog is deployed with nothing else to write: the last test packages
// a copy of the service with one more route and finds it in the template.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { functions, functionsFrom, serviceFunctions, steps } from '../../infra/functions.ts';
import { catalog, type DeployedRoute } from '../../lib/api/catalog.ts';
import { route } from '../../lib/http/route.ts';
import { functionKeyOf } from '../../lib/lambda-spec.ts';
import { integrations } from '../../lib/provisioning/registry.ts';
import { hermetic, SLS_BIN } from '../../local/serverless-config.ts';
import { functionLogicalId, templates } from '../../statemachines/cloudformation.ts';
import type { Template } from '../support/packaged.ts';

const run = promisify(execFile);
const yml = readFileSync('serverless.yml', 'utf8');

const probe = route({
  method: 'GET',
  path: '/api/probe/{probeId}',
  operationId: 'probe',
  lambda: { handler: 'functions/probe/read-probe.ts', memorySize: 256 },
  summary: 'A route that exists only in this test',
  tag: 'probe',
  access: { who: 'anyone' },
  responses: { 200: { description: 'ok' } },
});

describe('the functions made from the catalog and the state machines', () => {
  it('give each route of the catalog its function, named after its handler file, with its event', () => {
    for (const r of catalog) {
      const key = functionKeyOf(r.lambda.handler);
      expect(functions[key], `${r.method} ${r.path}`).toMatchObject({
        handler: `${r.lambda.handler.replace(/\.ts$/, '')}.handler`,
        events: [{ httpApi: { method: r.method, path: r.path } }],
      });
      expect(existsSync(r.lambda.handler), r.lambda.handler).toBe(true);
    }
    expect(functions.health).toEqual({ handler: 'functions/health/health.handler', memorySize: 256, events: [{ httpApi: { method: 'GET', path: '/health' } }] });
  });

  it('give a route added to the catalog its function and event', () => {
    const made = functionsFrom([...catalog, probe], steps);
    expect(Object.keys(made)).toHaveLength(Object.keys(functions).length + 1);
    expect(made['read-probe']).toEqual({ handler: 'functions/probe/read-probe.handler', memorySize: 256, events: [{ httpApi: { method: 'GET', path: '/api/probe/{probeId}' } }] });
  });

  it('refuse two declarations of one function', () => {
    const again: DeployedRoute = { ...probe, method: 'POST' };
    expect(() => functionsFrom([probe, again], [])).toThrow(/declares the function read-probe, which is declared already/);
    expect(() => functionsFrom([probe], [{ handler: 'functions/probe/read-probe.ts' }])).toThrow(/the step functions\/probe\/read-probe.ts/);
  });

  it('give each integration of the registry its step function, named after its step', () => {
    for (const [key, spec] of Object.entries(integrations)) {
      expect(functionKeyOf(spec.lambda.handler), key).toBe(spec.step);
      expect(existsSync(spec.lambda.handler), spec.lambda.handler).toBe(true);
      expect(functions[spec.step], key).toBeDefined();
      expect(functions[spec.step]!.events, key).toBeUndefined();
    }
    expect(functions['scrape-site']).toEqual({ handler: 'functions/crawler/steps/scrape-site.handler', timeout: 300, memorySize: 1024 });
  });

  it('make exactly the step functions the state machines invoke', () => {
    const invoked = new Set(Object.values(templates).flatMap((t) => t.invokes.map((i) => i['Fn::GetAtt'][0])));
    for (const step of steps) expect(existsSync(step.handler), step.handler).toBe(true);
    expect(new Set(steps.map((s) => functionLogicalId(functionKeyOf(s.handler))))).toEqual(invoked);
  });
});

describe('serverless.yml', () => {
  it('names no HTTP path: its own functions have only the catch-all event', () => {
    const listed = [(parse(yml, { logLevel: 'silent' }) as { functions: unknown }).functions].flat();
    const own = listed.filter((entry): entry is Record<string, { events?: unknown[] }> => typeof entry === 'object' && entry !== null);
    expect(Object.keys(Object.assign({}, ...own))).toEqual(['not-found']);
    for (const fn of own.flatMap((entry) => Object.values(entry))) expect(fn.events).toEqual([{ httpApi: '*' }]);
    for (const r of catalog) expect(yml, r.path).not.toContain(r.path);
    expect(yml).not.toMatch(/^\s*path:/m);
  });

  it('deploys the made functions and its own, and nothing else', () => {
    expect(Object.keys(serviceFunctions()).sort()).toEqual([...Object.keys(functions), 'not-found'].sort());
  });
});

describe('a route added to the catalog', () => {
  // A copy of the service whose catalog has one more route, with its handler file; nothing else is written.
  const copy = mkdtempSync(join(tmpdir(), 'probe-route-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('is packaged with its function and its event, and nothing in serverless.yml', async () => {
    for (const entry of ['functions', 'lib', 'infra', 'statemachines', 'serverless.yml', 'package.json', 'tsconfig.json']) cpSync(entry, join(copy, entry), { recursive: true });
    symlinkSync(join(process.cwd(), 'node_modules'), join(copy, 'node_modules'), 'dir');
    writeFileSync(
      join(copy, 'lib/api/probe-route.ts'),
      `import { route } from '../http/route.ts';\nexport const probe = route(${JSON.stringify(probe)} as const);\n`,
    );
    writeFileSync(join(copy, 'lib/api/catalog.ts'), `${readFileSync('lib/api/catalog.ts', 'utf8')}\nimport { probe } from './probe-route.ts';\n(catalog as DeployedRoute[]).push(probe);\n`);
    mkdirSync(join(copy, 'functions/probe'));
    writeFileSync(
      join(copy, 'functions/probe/read-probe.ts'),
      `import { probe } from '../../lib/api/probe-route.ts';\nimport { httpEndpoint, json } from '../../lib/http/endpoint.ts';\n\nexport const handler = httpEndpoint(probe, async () => json(200, { ok: true }));\n`,
    );

    const out = join(copy, 'out');
    await run(process.execPath, [SLS_BIN, 'package', '--stage', 'ci', '--package', out], {
      cwd: copy,
      env: { ...hermetic(process.env, {}), HOME: copy, SLS_TELEMETRY_DISABLED: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });

    const template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
    const resources = Object.entries(template.Resources);
    const lambda = template.Resources[functionLogicalId('read-probe')]!;
    expect(lambda.Type).toBe('AWS::Lambda::Function');
    expect(lambda.Properties).toMatchObject({ FunctionName: 'agency-backend-ci-read-probe', Handler: 'functions/probe/read-probe.handler', MemorySize: 256 });
    const routes = resources.filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(routes).toContain('GET /api/probe/{probeId}');
    expect(routes).toHaveLength(catalog.length + 2); // the catalog's, the probe's and the catch-all
    expect(existsSync(join(out, 'read-probe.zip'))).toBe(true);
  }, 360_000);
});
