import { request } from 'node:http';
import { inject } from 'vitest';

export const stack = () => inject('stack');

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * A random loopback address (Linux routes all of 127/8 to loopback): the API
 * sees it as the client IP, so a test calling from one of its own has per-IP
 * rate limits to itself.
 */
export const randomLoopbackIp = () =>
  `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

/** This test file's own client address, so per-IP rate limits of one file never affect another. */
export const fileClientIp = randomLoopbackIp();

/** Calls the running API the way a front end does. */
export async function api<T = any>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string; fromIp?: string } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = new URL(`${stack().urls.api}${path}`);
  const { status, headers: responseHeaders, text } = await new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
        headers: body !== undefined ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers,
        localAddress: init.fromIp ?? fileClientIp,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) for (const one of [v].flat()) if (one !== undefined) h.append(k, one);
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status, headers: responseHeaders, body: parsed as T, text };
}

/** Reads what the vendor emulators recorded. */
export async function recorded<T = any>(kind: string): Promise<T> {
  const res = await fetch(`${stack().urls.emulators}/_local/${kind}`);
  if (!res.ok) throw new Error(`GET /_local/${kind} answered ${res.status}`);
  return (await res.json()) as T;
}

/** `mode`: a generic one (fail, throttle, hang, lose-answer) or one of the vendor's own (local/emulators/host.ts). */
export async function injectFault(fault: { vendor: string; mode: string; count?: number | 'always'; match?: string; retryAfterSeconds?: number }) {
  const res = await fetch(`${stack().urls.emulators}/_local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  if (res.status !== 201) throw new Error(`fault refused: ${res.status} ${await res.text()}`);
}

/** Asserts the documented error shape and returns its code. */
export function errorCode(reply: Reply): string {
  const b = reply.body;
  if (!b || typeof b.error?.code !== 'string' || typeof b.error?.message !== 'string' || typeof b.requestId !== 'string') {
    throw new Error(`not the JSON error shape: ${reply.status} ${reply.text.slice(0, 300)}`);
  }
  return b.error.code;
}

/**
 * A fetch for the API client (its `fetch` option) that calls from a client
 * address of its own, as `api` does, so the rate limits it meets are its own.
 */
export function fetchFrom(fromIp: string = randomLoopbackIp()): (input: Request) => Promise<Response> {
  return async (input) => {
    const url = new URL(input.url);
    const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
    const headers = { ...Object.fromEntries(input.headers), ...(body ? { 'content-length': String(body.length) } : {}) };
    return new Promise<Response>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: url.port, path: `${url.pathname}${url.search}`, method: input.method, headers, localAddress: fromIp }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) for (const one of [v].flat()) if (one !== undefined) h.append(k, one);
          const status = res.statusCode ?? 0;
          resolve(new Response([204, 205, 304].includes(status) ? null : Buffer.concat(chunks), { status, headers: h }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  };
}
