// The route catalog, the functions deployed and the OpenAPI document describe the same API.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { serviceFunctions } from '../../../infra/functions.ts';
import { catalog } from '../../../lib/api/catalog.ts';
import { methodsAt } from '../../../lib/api/match.ts';
import { buildOpenApi } from '../../../lib/api/openapi.ts';

const functions = serviceFunctions();
const deployed = Object.values(functions).flatMap((fn) =>
  (fn.events ?? []).flatMap((e) => (typeof e.httpApi === 'object' ? [`${e.httpApi.method} ${e.httpApi.path}`] : [])),
);

describe('the route catalog', () => {
  it('lists exactly the HTTP routes the service deploys', () => {
    expect(catalog.map((r) => `${r.method} ${r.path}`).sort()).toEqual(deployed.sort());
  });

  it('has unique operation ids', () => {
    const ids = catalog.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names each function after its handler file', () => {
    for (const [key, fn] of Object.entries(functions)) {
      expect(fn.handler).toMatch(new RegExp(`^functions/[a-z-]+(/[a-z-]+)*/${key}\\.handler$`));
    }
  });

  it('tells a wrong method from an unknown path', () => {
    expect(methodsAt('/health', catalog)).toEqual(['GET']);
    expect(methodsAt('/health/', catalog)).toEqual(['GET']);
    expect(methodsAt('/nope', catalog)).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  const doc = buildOpenApi(catalog, { title: 't', version: '1' });

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('describes every route', () => {
    for (const r of catalog) expect(doc.paths[r.path]?.[r.method.toLowerCase()]).toBeDefined();
  });

  it('documents the membership and booking webhook bodies, open to fields the providers add', () => {
    const body = (path: string) => (doc.paths[path] as any).post.requestBody;
    const membership = body('/webhooks/membership/{secret}');
    const booking = body('/webhooks/booking/{secret}');
    expect(membership.description).toMatch(/signature/);
    const m = membership.content['application/json'].schema;
    expect(m).toMatchObject({ type: 'object', required: ['event'], properties: { event: { type: 'string' }, timestamp: { type: 'number' } } });
    expect(JSON.stringify(m)).toContain('planConnection');
    const b = booking.content['application/json'].schema;
    expect(b.then).toMatchObject({ required: ['triggerEvent'] });
    expect(b.else).toMatchObject({ required: ['event'] });
    // Nowhere closed: the providers add fields over time.
    expect(JSON.stringify([m, b])).not.toContain('"additionalProperties":false');
  });
});
