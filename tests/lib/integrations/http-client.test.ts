import { beforeEach, describe, expect, it } from 'vitest';
import { VendorError } from '../../../lib/errors.ts';
import { retryAfterHeader, vendorHttp } from '../../../lib/integrations/http-client.ts';
import { refusedOrigin, useLocalServer } from '../../support/local-server.ts';

// A scripted vendor: each request takes the next planned answer.
type Plan = { status: number; body?: unknown; headers?: Record<string, string>; hang?: boolean };
let plan: Plan[] = [];
let seen: { method?: string; url?: string; auth?: string; body: string }[] = [];
const server = useLocalServer((req, body, res) => {
  seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
  const next = plan.shift() ?? { status: 200, body: { ok: true } };
  if (next.hang) return;
  res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
  res.end(next.body === undefined ? '' : typeof next.body === 'string' ? next.body : JSON.stringify(next.body));
});
beforeEach(() => {
  plan = [];
  seen = [];
});

const sleeps: number[] = [];
const client = (overrides: Partial<Parameters<typeof vendorHttp>[0]['policy']> = {}) =>
  vendorHttp({
    vendor: 'acme',
    baseUrl: server.base,
    headers: () => ({ authorization: 'Bearer secret-token' }),
    policy: { timeoutMs: 300, maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryWaitMs: 5000, ...overrides },
    retryHint: (res) => retryAfterHeader(res),
    errorCode: (body) => (body as { code?: string } | undefined)?.code,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });

describe('the vendor HTTP client', () => {
  beforeEach(() => sleeps.splice(0));

  it('sends JSON with the auth headers and returns the parsed answer', async () => {
    plan = [{ status: 201, body: { id: 'x1' } }];
    const res = await client()('create thing', { path: '/things', json: { name: 'a' } });
    expect(res).toMatchObject({ status: 201, body: { id: 'x1' } });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/things', auth: 'Bearer secret-token', body: '{"name":"a"}' });
  });

  it('retries a 5xx and succeeds', async () => {
    plan = [{ status: 503 }, { status: 502 }, { status: 200, body: { ok: 1 } }];
    expect((await client()('get', { path: '/x' })).body).toEqual({ ok: 1 });
    expect(seen).toHaveLength(3);
  });

  it("waits for the vendor's retry hint on 429", async () => {
    plan = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200 }];
    await client()('get', { path: '/x' });
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(sleeps[0]).toBeLessThan(2300);
  });

  it('hands a hint longer than it may wait to the caller as a transient error', async () => {
    plan = [{ status: 429, headers: { 'retry-after': '60' } }];
    const error = await client()('get', { path: '/x' }).catch((e) => e);
    expect(error).toBeInstanceOf(VendorError);
    // Its own name, so the state machines give it a schedule long enough for the vendor's window.
    expect(error.name).toBe('VendorThrottled');
    expect(error.context).toMatchObject({ transient: true, status: 429, retryAfterMs: 60000 });
    expect(seen).toHaveLength(1);
  });

  it('gives up after its attempts with a transient error naming the operation', async () => {
    plan = [{ status: 500 }, { status: 500 }, { status: 500 }];
    const error = await client()('create folder', { path: '/x' }).catch((e) => e);
    expect(error.name).toBe('VendorUnavailable');
    expect(error.message).toBe('acme: create folder answered 500 (gave up after 3 attempts)');
  });

  it('does not retry a refusal, keeps the vendor code and drops vendor free text', async () => {
    plan = [{ status: 400, body: { code: 'INVALID_NAME', message: 'user@example.com secret stuff' } }];
    const error = await client()('create', { path: '/x', json: {} }).catch((e) => e);
    expect(error.name).toBe('VendorRejected');
    expect(error.context).toMatchObject({ transient: false, status: 400, vendorCode: 'INVALID_NAME' });
    expect(error.message).not.toContain('secret stuff');
    expect(seen).toHaveLength(1);
  });

  it('names an unexpected refusal VendorRejected, with the vendor, status and code, and does not retry it', async () => {
    plan = [{ status: 403, body: { code: 'plan_limit' } }];
    const error = await client()('create thing', { path: '/things', json: {} }).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected', vendor: 'acme', message: 'acme: create thing was refused (403 plan_limit)', context: { transient: false, status: 403, vendorCode: 'plan_limit' } });
    expect(seen).toHaveLength(1);
    const unsafe = VendorError.rejected('acme', 'read', { status: 400, vendorCode: 'free text with spaces' });
    expect(unsafe.message).toBe('acme: read was refused (400)');
    expect(unsafe.context.vendorCode).toBeUndefined();
  });

  it('retries a refusal the vendor marks as "later" with backoff, then gives up as VendorThrottled', async () => {
    plan = [409, 409, 409].map((status) => ({ status, body: { code: 'busy' } }));
    const busy = vendorHttp({
      vendor: 'acme',
      baseUrl: server.base,
      headers: () => ({}),
      policy: { timeoutMs: 300, maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryWaitMs: 5000 },
      errorCode: (body) => (body as { code?: string }).code,
      isThrottle: (_res, body) => (body as { code?: string }).code === 'busy',
      sleep: async () => {},
    });
    const error = await busy('write', { path: '/w', json: {}, repeatable: false }).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorThrottled', context: { transient: true, throttled: true, status: 409, vendorCode: 'busy' } });
    expect(seen).toHaveLength(3);
  });

  it('after a 401, lets the caller drop its credentials and sends once more, even a call that must not repeat', async () => {
    let token = 'old';
    const reauthenticating = vendorHttp({
      vendor: 'acme',
      baseUrl: server.base,
      headers: () => ({ authorization: `Bearer ${token}` }),
      policy: { timeoutMs: 300, maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryWaitMs: 5000 },
      reauthenticate: () => (token = 'new'),
    });
    plan = [{ status: 401 }, { status: 200, body: { id: 1 } }];
    expect((await reauthenticating('create', { path: '/c', json: {}, repeatable: false })).body).toEqual({ id: 1 });
    expect(seen.map((r) => r.auth)).toEqual(['Bearer old', 'Bearer new']);
    plan = [{ status: 401 }, { status: 401 }];
    await expect(reauthenticating('create', { path: '/c', json: {} })).rejects.toMatchObject({ name: 'VendorRejected', context: { status: 401 } });
    expect(seen).toHaveLength(4);
  });

  it('returns statuses the caller accepts', async () => {
    plan = [{ status: 409, body: { error_summary: 'path/conflict/folder/' } }];
    expect((await client()('create', { path: '/x', accept: [409] })).status).toBe(409);
  });

  it('times out a hanging vendor and retries', async () => {
    plan = [{ status: 0, hang: true }, { status: 200, body: { ok: true } }];
    expect((await client()('get', { path: '/x' })).body).toEqual({ ok: true });
  });

  it('reports a vendor that always hangs as timed out', async () => {
    plan = [{ status: 0, hang: true }, { status: 0, hang: true }];
    const error = await client({ maxAttempts: 2 })('get', { path: '/x' }).catch((e) => e);
    expect(error.message).toBe('acme: get timed out (gave up after 2 attempts)');
  });

  describe('a call that is not safe to repeat (repeatable: false)', () => {
    const create = (overrides = {}) => client(overrides)('create the lead', { path: '/lead/', json: { name: 'a' }, repeatable: false });

    it('is not sent again after a 5xx: the vendor may have done it', async () => {
      plan = [{ status: 502 }, { status: 200, body: { id: 'twice' } }];
      const error = await create().catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorUnavailable', context: { transient: true, status: 502, outcomeUnknown: true } });
      expect(error.message).toBe('acme: create the lead answered 502 (not repeated: it may have been done)');
      expect(seen).toHaveLength(1);
    });

    it('is not sent again after its answer timed out', async () => {
      plan = [{ status: 0, hang: true }, { status: 200, body: { id: 'twice' } }];
      const error = await create().catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorUnavailable', context: { transient: true, outcomeUnknown: true } });
      expect(error.message).toContain('timed out');
      expect(seen).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it('is retried after a 429, which says it was not done', async () => {
      plan = [{ status: 429, headers: { 'retry-after': '1' } }, { status: 200, body: { id: 'once' } }];
      expect((await create()).body).toEqual({ id: 'once' });
      expect(seen).toHaveLength(2);
    });

    it('is retried when the connection was refused before anything was sent', async () => {
      const refused = vendorHttp({
        vendor: 'acme',
        baseUrl: await refusedOrigin(),
        headers: () => ({}),
        policy: { timeoutMs: 300, maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryWaitMs: 5000 },
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      });
      const error = await refused('create the lead', { path: '/lead/', json: {}, repeatable: false }).catch((e) => e);
      expect(error.message).toBe('acme: create the lead could not be reached (gave up after 3 attempts)');
      expect(error.context.outcomeUnknown).toBeUndefined();
      expect(sleeps).toHaveLength(2);
    });

    it('leaves ordinary calls retried as before', async () => {
      plan = [{ status: 502 }, { status: 200, body: { data: [] } }];
      expect((await client()('search', { path: '/data/search/', json: {} })).body).toEqual({ data: [] });
      expect(seen).toHaveLength(2);
    });
  });
});
