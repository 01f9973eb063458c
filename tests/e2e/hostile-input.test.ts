// Bad input, over HTTP, for every route of the catalog (so every endpoint,
// including ones added later): thousands of random and hostile requests each.
// Whatever comes in, the answer is never a 5xx; an error is always the JSON
// error shape; a redirect only ever goes to an allowed place; and a body that
// tries to set an object's prototype is refused.
import fc from 'fast-check';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../lib/api/catalog.ts';
import { errorCode, randomLoopbackIp, stack, type Reply } from '../support/http.ts';
import { hostileRequest, type HostileRequest } from '../support/hostile.ts';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 2000);

/** Sends exactly these bytes (unlike fetch, which would normalise them), from a random client address. */
function send(req: HostileRequest): Promise<Reply> {
  const url = new URL(stack().urls.api);
  const search = new URLSearchParams(req.query).toString();
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: '127.0.0.1',
        port: url.port,
        method: req.method,
        path: `${req.path}${search ? `?${search}` : ''}`,
        headers: req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
        localAddress: randomLoopbackIp(),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) for (const one of [v].flat()) if (one !== undefined) headers.append(k, one);
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers, text, body });
        });
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Where a redirect may send someone: the dashboard, or the payment provider's hosted pages. */
function allowedRedirect(location: string): boolean {
  const allowed = [stack().env.DASHBOARD_URL, stack().env.STRIPE_API_BASE, 'https://checkout.stripe.com']
    .filter(Boolean)
    .map((u) => new URL(u!).origin);
  try {
    return allowed.includes(new URL(location).origin);
  } catch {
    return false;
  }
}

async function expectSafeAnswer(req: HostileRequest) {
  const reply = await send(req);
  const what = `${req.method} ${req.path} → ${reply.status} ${reply.text.slice(0, 200)}`;
  expect(reply.status, what).toBeLessThan(500);
  if (reply.status >= 400) {
    expect(reply.headers.get('content-type'), what).toContain('application/json');
    errorCode(reply);
  }
  if (reply.status >= 300 && reply.status < 400) expect(allowedRedirect(reply.headers.get('location') ?? ''), what).toBe(true);
  if (req.protoKey) expect(reply.status, what).toBeGreaterThanOrEqual(400);
  // Whatever a client sent as its correlation id, only a plain token comes back.
  expect(reply.headers.get('x-correlation-id') ?? '', what).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
}

describe('hostile input, over HTTP', () => {
  for (const route of catalog) {
    it.concurrent(`${route.method} ${route.path}`, { timeout: 600_000 }, async () => {
      await fc.assert(fc.asyncProperty(hostileRequest(route), expectSafeAnswer), { numRuns: RUNS });
    });
  }

  it.concurrent('unknown paths and methods', { timeout: 600_000 }, async () => {
    const unknown = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      path: fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`),
    });
    await fc.assert(
      fc.asyncProperty(unknown, ({ method, path }) => expectSafeAnswer({ method, path, pathParams: {}, query: {}, headers: {}, protoKey: false })),
      { numRuns: RUNS },
    );
  });
});
