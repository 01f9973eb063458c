// How our outbound calls to vendor APIs travel (supabase-js's `fetch` option,
// vendorHttp): shaped like fetch, but over node:http(s), which Lambda's runtime
// has already loaded, where fetch loads and compiles undici on its first use
// (docs/performance.md has what it buys). It does what those callers use, and
// refuses more: a method, headers, a string or byte body, an AbortSignal (its
// reason rejects, as fetch), redirects followed (at most 20) or 'manual', and
// an answer read whole (status, ok, headers.get, text(), json()). No
// Accept-Encoding is sent; a compressed answer is decoded anyway. A network
// failure rejects with a TypeError whose cause is the socket's error, as fetch.
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';

export interface TransportInit {
  method?: string;
  headers?: Record<string, string> | [string, string][] | { forEach(each: (value: string, name: string) => void): void };
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'manual' | 'error';
}

export interface TransportHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
}

export interface TransportResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  /** The address that answered (after redirects). */
  readonly url: string;
  readonly redirected: boolean;
  readonly headers: TransportHeaders;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export type HttpTransport = (input: string | URL, init?: TransportInit) => Promise<TransportResponse>;

const MAX_REDIRECTS = 20;
/** Sends of one request on kept-alive sockets found closed, before it fails: the pool holds a socket per concurrent call. */
const STALE_SOCKET_ATTEMPTS = 4;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A protocol's module and its keep-alive pool, for the life of the Lambda instance. */
interface Client {
  module: Pick<typeof http, 'request'>;
  agent: http.Agent;
}
const plain: Client = { module: http, agent: new http.Agent({ keepAlive: true }) };
// https is loaded on the first https call.
let secure: Promise<Client> | undefined;
const clientFor = (protocol: string): Client | Promise<Client> =>
  protocol === 'http:' ? plain : (secure ??= import('node:https').then((https) => ({ module: https, agent: new https.Agent({ keepAlive: true }) })));

export const httpTransport: HttpTransport = async (input, init = {}) => {
  const signal = init.signal ?? undefined;
  let url = new URL(input);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body ?? undefined;
  let headers = headerRecord(init.headers);
  if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError('httpTransport sends a string or bytes as a body, nothing else');
  }
  for (let redirects = 0; ; redirects++) {
    const answer = await exchange(url, method, headers, body, signal);
    const location = answer.headers.location;
    if (!REDIRECTS.has(answer.statusCode ?? 0) || !location || init.redirect === 'manual') return response(answer, url, redirects > 0);
    if (init.redirect === 'error') throw new TypeError(`${url.origin} redirected, and redirects were refused`);
    if (redirects === MAX_REDIRECTS) throw new TypeError(`${url.origin} redirected more than ${MAX_REDIRECTS} times`);
    const next = new URL(location, url);
    // As fetch: a 303, or a 301/302 answering a POST, is followed with a GET and no body; credentials stay with their origin.
    if (answer.statusCode === 303 || (method === 'POST' && answer.statusCode !== 307 && answer.statusCode !== 308)) {
      if (method !== 'HEAD') method = 'GET';
      body = undefined;
      headers = withoutHeaders(headers, ['content-type', 'content-length']);
    }
    if (next.origin !== url.origin) headers = withoutHeaders(headers, ['authorization', 'cookie']);
    url = next;
  }
};

interface Answer {
  statusCode?: number;
  statusMessage?: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * One request and its whole answer. A kept-alive socket that the server closed
 * while it was idle (or while a Lambda instance was frozen) fails the request
 * sent on it at once with ECONNRESET; it is sent again on another socket, as
 * Node's docs advise (http.md, "request.reusedSocket"), at most a few times.
 */
async function exchange(url: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, signal?: AbortSignal): Promise<Answer> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`httpTransport sends http and https only, not ${url.protocol}`);
  signal?.throwIfAborted();
  const client = await clientFor(url.protocol);
  const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  const once = () =>
    new Promise<{ answer?: Answer; staleSocket?: boolean }>((resolve, reject) => {
      let answered = false;
      const req = client.module.request(
        // An options object, not a URL: the bench's capture of a function's requests reads these fields.
        { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || undefined, path: `${url.pathname}${url.search}`, method, headers: { ...headers, ...length } as OutgoingHttpHeaders, agent: client.agent, signal },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => reject(failure(error, signal, url)));
          res.on('close', () => {
            if (!res.complete) reject(failure(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' }), signal, url));
          });
          res.on('end', () => {
            decoded(Buffer.concat(chunks), res.headers['content-encoding']).then(
              (decodedBody) => resolve({ answer: { statusCode: res.statusCode, statusMessage: res.statusMessage, headers: res.headers, body: decodedBody } }),
              (error) => reject(failure(error, signal, url)),
            );
          });
        },
      );
      req.on('error', (error: Error & { code?: string }) => {
        // Only a reset before any answer: one cut off mid-answer was received, and is not sent again.
        if (req.reusedSocket && !answered && error.code === 'ECONNRESET' && !signal?.aborted) resolve({ staleSocket: true });
        else reject(failure(error, signal, url));
      });
      req.end(body);
    });
  for (let attempt = 1; ; attempt++) {
    const { answer } = await once();
    if (answer) return answer;
    if (attempt === STALE_SOCKET_ATTEMPTS) throw failure(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), signal, url);
  }
}

/** What a failed exchange rejects with: the signal's reason when it was aborted, else fetch's TypeError with the socket's error as its cause. */
function failure(error: unknown, signal: AbortSignal | undefined, url: URL): unknown {
  if (signal?.aborted) return signal.reason;
  return new TypeError(`${url.origin} could not be reached: ${(error as { code?: string }).code ?? (error as Error).message}`, { cause: error });
}

async function decoded(body: Buffer, encoding: string | undefined): Promise<Buffer> {
  const coding = encoding?.trim().toLowerCase();
  if (!coding || coding === 'identity') return body;
  const zlib = await import('node:zlib');
  const { promisify } = await import('node:util');
  if (coding === 'gzip' || coding === 'x-gzip') return promisify(zlib.gunzip)(body);
  if (coding === 'deflate') return promisify(zlib.inflate)(body);
  if (coding === 'br') return promisify(zlib.brotliDecompress)(body);
  throw new Error(`an answer in an encoding not understood: ${coding}`);
}

function response(answer: Answer, url: URL, redirected: boolean): TransportResponse {
  const status = answer.statusCode ?? 0;
  const text = answer.body.toString('utf8');
  const value = (name: string) => {
    const found = answer.headers[name.toLowerCase()];
    return found === undefined ? null : Array.isArray(found) ? found.join(', ') : found;
  };
  return {
    status,
    statusText: answer.statusMessage ?? '',
    ok: status >= 200 && status < 300,
    url: url.href,
    redirected,
    headers: { get: value, has: (name) => value(name) !== null },
    text: async () => text,
    json: async () => JSON.parse(text) as unknown,
  };
}

function headerRecord(headers: TransportInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  const add = (value: string, name: string) => {
    const key = name.toLowerCase();
    record[key] = key in record ? `${record[key]}, ${value}` : String(value);
  };
  if (Array.isArray(headers)) for (const [name, value] of headers) add(value, name);
  else if (typeof (headers as { forEach?: unknown }).forEach === 'function') (headers as { forEach(each: (value: string, name: string) => void): void }).forEach(add);
  else for (const [name, value] of Object.entries(headers)) add(value, name);
  return record;
}

const withoutHeaders = (headers: Record<string, string>, names: string[]) => Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
