// The error codes in the OpenAPI document: each error answer lists the codes
// its route gives and those the HTTP stack answers at that status, as an open
// set (anyOf: the known codes, or any string), which the typed client turns
// into a union its users can switch on.
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../lib/api/catalog.ts';
import { buildOpenApi } from '../../../lib/api/openapi.ts';
import { route, type RouteSpec } from '../../../lib/http/route.ts';

type Doc = ReturnType<typeof buildOpenApi>;

/** The known codes of an answer, or undefined when its code is any string. */
function codesOf(doc: Doc, method: string, path: string, status: number): string[] | undefined {
  const schema = (doc.paths[path] as any)?.[method.toLowerCase()]?.responses?.[status]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no answer ${status} for ${method} ${path}`);
  if (schema.$ref) return undefined;
  expect(schema.required).toEqual(['error', 'requestId']);
  const code = schema.properties.error.properties.code;
  expect(code.anyOf[1]).toEqual({ type: 'string' });
  return code.anyOf[0].enum;
}

describe('error codes in the OpenAPI document', () => {
  const signup = route({
    method: 'POST',
    path: '/signup',
    operationId: 'signup',
    summary: 's',
    tag: 't',
    access: { who: 'anyone' },
    body: { type: 'object' },
    responses: { 201: { description: 'ok' }, 400: { description: 'bad', codes: ['weak_password'] }, 409: { description: 'taken' }, 429: { description: 'slow' } },
  });
  const member = route({
    method: 'GET',
    path: '/accounts/{accountId}',
    operationId: 'account',
    summary: 's',
    tag: 't',
    access: { who: 'member', permission: 'read', account: { path: 'accountId' } },
    responses: { 200: { description: 'ok' }, 401: { description: 'who' }, 403: { description: 'no' }, 404: { description: 'none' }, 410: { description: 'gone', codes: ['invitation_expired'] } },
  });
  const doc = buildOpenApi([signup, member] as RouteSpec[], { title: 't', version: '1' });

  it("lists the route's own codes with those the HTTP stack answers at that status", () => {
    expect(codesOf(doc, 'POST', '/signup', 400)).toEqual(['weak_password', 'invalid_request', 'malformed_json']);
    expect(codesOf(doc, 'POST', '/signup', 429)).toEqual(['rate_limited']);
    expect(codesOf(doc, 'GET', '/accounts/{accountId}', 401)).toEqual(['unauthenticated']);
    expect(codesOf(doc, 'GET', '/accounts/{accountId}', 403)).toEqual(['forbidden']);
    expect(codesOf(doc, 'GET', '/accounts/{accountId}', 404)).toEqual(['account_not_found']);
    expect(codesOf(doc, 'GET', '/accounts/{accountId}', 410)).toEqual(['invitation_expired']);
  });

  it('leaves the code any string where neither the route nor the stack names one', () => {
    expect(codesOf(doc, 'POST', '/signup', 409)).toBeUndefined();
  });

  // Route authors name codes in the descriptions too; a code named there and missing from the list is a
  // client that cannot see it coming.
  it('lists every code an error description of the catalog names', () => {
    const real = buildOpenApi(catalog, { title: 't', version: '1' });
    const missing: string[] = [];
    for (const r of catalog) {
      for (const [status, spec] of Object.entries(r.responses)) {
        if (Number(status) < 400 || spec.schema) continue;
        const named = [...spec.description.matchAll(/\(([a-z]+(?:_[a-z]+)+)[,:;)]/g)].map((m) => m[1]!);
        const listed = codesOf(real, r.method, r.path, Number(status)) ?? [];
        for (const code of named) if (!listed.includes(code)) missing.push(`${r.method} ${r.path} ${status}: ${code}`);
      }
    }
    expect(missing).toEqual([]);
    expect(codesOf(real, 'POST', '/api/auth/signup', 409)).toEqual(['email_already_registered']);
  });
});
