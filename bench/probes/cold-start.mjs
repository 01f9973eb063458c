// One cold start, in a process of its own: what Lambda's Node runtime does
// before the first answer. The runtime client has node:http loaded (it talks
// to the Runtime API with it) before it imports the handler, so the probe does
// the same. Plain JavaScript, so the probe itself costs the same for every
// bundle. Argument: the bundle's file URL. The event comes on stdin; the
// timings go to fd 3, so the handler's logs (stdout) cost what they cost.
//
// With BENCH_CAPTURE set, the probe also records every request the first call
// makes (node:http and fetch), so that the function's same-I/O floor can
// replay them (bench/fixtures/same-io-handler.ts); such a run is not timed.
import { createRequire } from 'node:module';
import { readFileSync, writeSync } from 'node:fs';

const require = createRequire(import.meta.url);
const http = require('node:http');
const event = JSON.parse(readFileSync(0, 'utf8'));
const context = {
  awsRequestId: `cold-${process.pid}`,
  functionName: 'bench',
  functionVersion: '$LATEST',
  memoryLimitInMB: '1024',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 30_000,
};

const captured = process.env.BENCH_CAPTURE ? capture() : undefined;

const startedAt = performance.now();
const { handler } = await import(process.argv[2]);
const loadedAt = performance.now();
let answer;
try {
  const result = await handler(event, context);
  answer = result && typeof result === 'object' && 'statusCode' in result ? String(result.statusCode) : 'ok';
} catch (error) {
  answer = `threw ${error?.name ?? 'error'}`;
}
const answeredAt = performance.now();
// performance.now() counts from the process's start, so answeredAt is the whole cold start.
const report = { bootMs: startedAt, importMs: loadedAt - startedAt, firstCallMs: answeredAt - loadedAt, totalMs: answeredAt, answer };
if (captured) report.requests = await Promise.all(captured);
// A compile cache (NODE_COMPILE_CACHE) is written when the process ends; make sure it is.
if (process.env.NODE_COMPILE_CACHE) require('node:module').flushCompileCache?.();
writeSync(3, JSON.stringify(report));
process.exit(0);

/** Records the requests made through node:http and fetch, each with its body. */
function capture() {
  const requests = [];
  const original = http.request;
  http.request = function (...args) {
    const req = original.apply(this, args);
    const options = typeof args[0] === 'object' && !(args[0] instanceof URL) ? args[0] : { ...args[1] };
    const chunks = [];
    const write = req.write;
    req.write = function (chunk, ...rest) {
      if (chunk) chunks.push(Buffer.from(chunk));
      return write.call(this, chunk, ...rest);
    };
    const end = req.end;
    let done;
    requests.push(new Promise((resolve) => (done = resolve)));
    req.end = function (chunk, ...rest) {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
      done({
        via: 'http',
        method: options.method ?? 'GET',
        url: `${options.protocol ?? 'http:'}//${options.hostname ?? options.host}:${options.port ?? 80}${options.path ?? '/'}`,
        headers: Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      return end.call(this, chunk, ...rest);
    };
    return req;
  };
  const originalFetch = globalThis.fetch;
  globalThis.fetch = async (input, init = {}) => {
    const request = new Request(input, init);
    const body = init.body === undefined || init.body === null ? '' : await new Response(init.body).text();
    requests.push(Promise.resolve({ via: 'fetch', method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body }));
    return originalFetch(input, init);
  };
  return requests;
}
