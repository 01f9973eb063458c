// Warm requests, in one process: the first call of each handler, then many
// calls alternating between our HTTP stack and the bare handler, so both see
// the same machine at the same moments. Arguments: the two bundles' file URLs
// and the number of calls. Results go to fd 3 (stdout takes the access logs).
import { writeSync } from 'node:fs';

const [stackedUrl, bareUrl, callsArg] = process.argv.slice(2);
const calls = Number(callsArg);
const origin = process.env.BENCH_ORIGIN;
let n = 0;

/** A fresh event per call: middlewares may rewrite the one they get (the body parser does). */
function event() {
  n += 1;
  return {
    version: '2.0',
    routeKey: 'POST /api/auth/forgot-password',
    rawPath: '/api/auth/forgot-password',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', origin, 'x-forwarded-for': '203.0.113.9', 'user-agent': 'bench' },
    body: JSON.stringify({ email: `person-${n}@example.com` }),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000', apiId: 'bench', domainName: 'api.example.test', domainPrefix: 'api',
      http: { method: 'POST', path: '/api/auth/forgot-password', protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'bench' },
      requestId: `r-${n}`, routeKey: 'POST /api/auth/forgot-password', stage: '$default', time: '', timeEpoch: 0,
    },
  };
}
const context = () => ({ awsRequestId: `warm-${n}`, functionName: 'bench', getRemainingTimeInMillis: () => 30_000 });

async function timed(handler) {
  const e = event();
  const c = context();
  const t0 = process.hrtime.bigint();
  const result = await handler(e, c);
  const ns = process.hrtime.bigint() - t0;
  if (result.statusCode !== 200) throw new Error(`expected 200, got ${result.statusCode}: ${result.body}`);
  return Number(ns) / 1e6;
}

const stacked = (await import(stackedUrl)).handler;
const bare = (await import(bareUrl)).handler;
const firstStacked = await timed(stacked);
const firstBare = await timed(bare);
for (let i = 0; i < 500; i++) {
  await timed(stacked);
  await timed(bare);
}
const s = new Float64Array(calls);
const b = new Float64Array(calls);
for (let i = 0; i < calls; i++) {
  s[i] = await timed(stacked);
  b[i] = await timed(bare);
}
writeSync(3, JSON.stringify({ firstStacked, firstBare, stacked: Array.from(s), bare: Array.from(b) }));
process.exit(0);
