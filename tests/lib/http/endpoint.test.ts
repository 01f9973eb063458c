import { describe, expect, it } from 'vitest';
import { permissionGuard } from '../../../lib/access/permission-guard.ts';
import { Conflict, InvalidInput, RateLimited, Unavailable, VendorError } from '../../../lib/errors.ts';
import { httpEndpoint, json, MAX_BODY_BYTES } from '../../../lib/http/endpoint.ts';
import { route, type RouteSpec } from '../../../lib/http/route.ts';
import { httpEvent, lambdaContext } from '../../support/events.ts';

const echoRoute = route({
  method: 'POST',
  path: '/echo',
  operationId: 'echo',
  summary: 'echo',
  tag: 'test',
  access: { who: 'anyone' },
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: { email: { type: 'string', format: 'email' }, count: { type: 'integer', minimum: 1 } },
  },
  responses: { 200: { description: 'ok' } },
});

const echo = httpEndpoint(echoRoute, async ({ body }) => json(200, { got: body }));
const call = (handler: typeof echo, init: Parameters<typeof httpEvent>[0]) =>
  handler(httpEvent({ method: 'POST', path: '/echo', ...init }) as never, lambdaContext()) as Promise<{
    statusCode: number;
    headers: Record<string, string>;
    body: string;
  }>;

describe('the HTTP endpoint stack', () => {
  it('passes a valid JSON body to the handler and answers JSON', async () => {
    const res = await call(echo, { headers: { 'Content-Type': 'application/json' }, body: '{"email":"a@b.co","count":2}' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ got: { email: 'a@b.co', count: 2 } });
    expect(res.headers['x-correlation-id']).toMatch(/^aws-req-/);
  });

  it('answers 415 with the JSON error shape for a non-JSON content type', async () => {
    const res = await call(echo, { headers: { 'content-type': 'text/plain' }, body: 'email=a@b.co' });
    expect(res.statusCode).toBe(415);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'unsupported_media_type' }, requestId: expect.any(String) });
  });

  it('answers 400 malformed_json for JSON that does not parse', async () => {
    const res = await call(echo, { headers: { 'content-type': 'application/json' }, body: '{"email":' });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('malformed_json');
  });

  it('refuses __proto__ keys as malformed instead of merging them', async () => {
    const res = await call(echo, { headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.co","__proto__":{"polluted":1}}' });
    expect(res.statusCode).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers 400 with one detail per problem, never echoing the value', async () => {
    const res = await call(echo, { headers: { 'content-type': 'application/json' }, body: '{"email":"not-an-email","count":"2","extra":true}' });
    expect(res.statusCode).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details).toEqual(
      expect.arrayContaining([
        { path: '/body/email', message: 'must match format "email"' },
        { path: '/body/count', message: 'must be integer' },
        { path: '/body/extra', message: 'is not allowed' },
      ]),
    );
    expect(res.body).not.toContain('not-an-email');
  });

  it('answers 400 when a required field is missing, naming it', async () => {
    const res = await call(echo, { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.details).toContainEqual({ path: '/body/email', message: 'is required' });
  });

  it('maps domain errors to their statuses in one shape', async () => {
    const cases: [Error, number, string][] = [
      [new InvalidInput('bad'), 400, 'invalid_request'],
      [new Conflict('taken', 'email_taken'), 409, 'email_taken'],
      [new RateLimited('slow down', 42), 429, 'rate_limited'],
      [new VendorError('resend', 'could not send', { transient: true, operation: 'send' }), 500, 'vendor_failed'],
      [new Unavailable('later', 'member_records_copying', 300), 503, 'member_records_copying'],
    ];
    for (const [error, status, code] of cases) {
      const failing = httpEndpoint(echoRoute, async () => {
        throw error;
      });
      const res = await call(failing, { headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.co"}' });
      expect(res.statusCode).toBe(status);
      expect(JSON.parse(res.body).error.code).toBe(code);
      if (status === 429) expect(res.headers['retry-after']).toBe('42');
      if (status === 503) expect(res.headers['retry-after']).toBe('300');
    }
  });

  it('hides the details of an unexpected error behind a 500 with the same shape', async () => {
    const failing = httpEndpoint(echoRoute, async () => {
      throw new Error('db password is hunter2');
    });
    const res = await call(failing, { headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.co"}' });
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body).error.code).toBe('internal_error');
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('at ');
  });

  it('adds CORS headers for the portal and dashboard origins only', async () => {
    const allowed = await call(echo, {
      headers: { 'content-type': 'application/json', origin: 'http://localhost:3001' },
      body: '{"email":"a@b.co"}',
    });
    expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:3001');
    const other = await call(echo, {
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{"email":"a@b.co"}',
    });
    expect(other.headers['access-control-allow-origin']).not.toBe('https://evil.example');
  });

  it('keeps a well-formed correlation id from the caller and ignores a hostile one', async () => {
    const kept = await call(echo, {
      headers: { 'content-type': 'application/json', 'x-correlation-id': 'trace-123' },
      body: '{"email":"a@b.co"}',
    });
    expect(kept.headers['x-correlation-id']).toBe('trace-123');
    const replaced = await call(echo, {
      headers: { 'content-type': 'application/json', 'x-correlation-id': 'a\r\nset-cookie: x=1' },
      body: '{"email":"a@b.co"}',
    });
    expect(replaced.headers['x-correlation-id']).toMatch(/^aws-req-/);
  });

  it("tells the handler when the function's time is up, from the Lambda context", async () => {
    let deadline = 0;
    const handler = httpEndpoint(echoRoute, async (request) => {
      deadline = request.deadline;
      return json(200, {});
    });
    const before = Date.now();
    await call(handler, { headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.co"}' });
    // The test context has 10 s left whenever it is asked.
    expect(deadline).toBeGreaterThanOrEqual(before + 10_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 10_000);
  });

  it('lets no control character into a response header, whatever a handler puts there', async () => {
    const leaky = httpEndpoint(echoRoute, async ({ body }) =>
      json(200, {}, { location: `https://portal.test/?next=${body.email}\r\nSet-Cookie: session=stolen`, 'x-note': 'a\u0000b\u2028c' }),
    );
    const res = await call(leaky, { headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.co"}' });
    for (const value of Object.values(res.headers)) expect(String(value)).not.toMatch(/[\p{Cc}\p{Zl}\p{Zp}]/u);
    expect(res.headers.location).toBe('https://portal.test/?next=a@b.co Set-Cookie: session=stolen');
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('the size of a request body', () => {
  const guarded = route({
    method: 'POST',
    path: '/guarded-echo',
    operationId: 'guardedEcho',
    summary: 'guarded echo',
    tag: 'test',
    access: { who: 'user' },
    body: echoRoute.body,
    responses: { 200: { description: 'ok' } },
  });
  const untouchedGuard = permissionGuard('none', () => {
    throw new Error('the guard was asked');
  });
  let handled = 0;
  const counting = httpEndpoint(echoRoute, async () => {
    handled += 1;
    return json(200, {});
  });
  const padded = (bytes: number) => JSON.stringify({ email: 'a@b.co', pad: 'x'.repeat(bytes) });

  it('is refused with 413 in the error shape above the limit (0.5 MB and 5 MB), before parsing, the guard or the handler', async () => {
    for (const bytes of [512 * 1024, 5 * 1024 * 1024]) {
      const res = await call(counting, { headers: { 'content-type': 'application/json' }, body: padded(bytes) });
      expect(res.statusCode).toBe(413);
      expect(res.headers['content-type']).toBe('application/json');
      expect(JSON.parse(res.body)).toEqual({
        error: { code: 'payload_too_large', message: `The request body may be at most ${MAX_BODY_BYTES / 1024} KB` },
        requestId: expect.any(String),
      });
      const anonymous = await httpEndpoint(guarded, untouchedGuard, async () => json(200, {}))(
        httpEvent({ method: 'POST', path: '/guarded-echo', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: padded(bytes) }) as never,
        lambdaContext(),
      );
      expect((anonymous as { statusCode: number }).statusCode).toBe(413);
    }
    expect(handled).toBe(0);
  });

  it('counts bytes, not characters, and decodes base64 bodies first', async () => {
    const multiByte = JSON.stringify({ email: 'a@b.co', pad: 'é'.repeat(MAX_BODY_BYTES / 2) });
    expect(multiByte.length).toBeLessThan(MAX_BODY_BYTES);
    expect((await call(echo, { headers: { 'content-type': 'application/json' }, body: multiByte })).statusCode).toBe(413);
    const event = httpEvent({ method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: Buffer.from(padded(MAX_BODY_BYTES)).toString('base64') });
    event.isBase64Encoded = true;
    expect(((await counting(event as never, lambdaContext())) as { statusCode: number }).statusCode).toBe(413);
  });

  it('is taken up to the limit', async () => {
    const body = padded(MAX_BODY_BYTES - 40);
    const exact = body + ' '.repeat(MAX_BODY_BYTES - Buffer.byteLength(body));
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_BYTES);
    const res = await call(counting, { headers: { 'content-type': 'application/json' }, body: exact });
    expect(res.statusCode, res.body).toBe(400); // read and validated: pad is not a field of the route
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
  });
});

describe('the access rule of a route', () => {
  const rule = <R extends RouteSpec>(access: R['access']) =>
    route({ method: 'GET', path: '/guarded', operationId: 'guarded', summary: 'guarded', tag: 'test', access, responses: { 200: { description: 'ok' } } });
  const noDeps = () => {
    throw new Error('not asked');
  };

  it('cannot be built without the guard that enforces it, nor with a guard holding another kind of key', () => {
    const build = httpEndpoint as (...args: unknown[]) => unknown;
    const serviceRoute = rule({ who: 'member', permission: 'read', account: { path: 'accountId' }, serviceKey: true });
    expect(() => build(rule({ who: 'user' }), async () => json(200, {}))).toThrow('needs the access guard');
    expect(() => build(serviceRoute, permissionGuard('none', noDeps), async () => json(200, {}))).toThrow('takes the internal key');
    expect(() => build(rule({ who: 'admin' }), permissionGuard('internal', noDeps), async () => json(200, {}))).toThrow('takes the admin key');
    expect(() => build(serviceRoute, permissionGuard('internal', noDeps), async () => json(200, {}))).not.toThrow();
  });

  it('cannot be built with a guard holding no membership store when the rule reads the caller\'s role', () => {
    const build = httpEndpoint as (...args: unknown[]) => unknown;
    const withoutRoles = permissionGuard('none', noDeps, { readsRoles: false });
    expect(() => build(rule({ who: 'member', permission: 'read', account: { path: 'accountId' } }), withoutRoles, async () => json(200, {}))).toThrow(
      'holds no membership store',
    );
    expect(() => build(rule({ who: 'user' }), withoutRoles, async () => json(200, {}))).not.toThrow();
  });
});
