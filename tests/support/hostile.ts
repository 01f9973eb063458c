// Generators of hostile requests, shared by the in-process and the over-HTTP
// bad-input suites. Each request is built from a route of the catalog, so every
// endpoint, including ones added later, is covered.
import fc from 'fast-check';
import type { JSONSchema, RouteSpec } from '../../lib/http/route.ts';

export interface HostileRequest {
  method: string;
  path: string;
  /** The decoded values of the route's {params}, as API Gateway hands them to the Lambda. */
  pathParams: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
  /** The route parses this body as JSON, and it carries a __proto__ or constructor.prototype key. */
  protoKey: boolean;
}

const PROTO_BODIES = [
  '{"__proto__":{"polluted":true}}',
  '{"email":"a@b.co","__proto__":{"isAdmin":true}}',
  '{"metadata":{"__proto__":{"polluted":1}}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '[{"__proto__":{"x":1}}]',
];

/** Text with the edges of unicode and JSON: controls, lone surrogates, RTL marks, NUL, very long. */
const edgyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '\udfff', '\u202e', '\ufeff', 'null', 'undefined', 'NaN', '<script>alert(1)</script>', "' OR 1=1 --", '../../etc/passwd', '%00', '\r\nSet-Cookie: x=1'),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

const nested = fc.integer({ min: 20, max: 5_000 }).chain((depth) =>
  fc.constantFrom('[', '{"a":').map((open) => {
    const close = open === '[' ? ']' : '}';
    return `${open.repeat(depth)}1${close.repeat(depth)}`;
  }),
);

/** Any JSON value at all, including deep and large ones. */
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }),
  fc.array(fc.integer(), { minLength: 1_000, maxLength: 20_000 }),
  edgyText,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 12345678901234567890),
);

/** An object shaped like the schema, with some fields of the wrong type, some missing, some extra. */
function schemaShaped(schema: JSONSchema | undefined): fc.Arbitrary<unknown> {
  const names = Object.keys(((schema as { properties?: object } | undefined)?.properties ?? {}) as object);
  if (names.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 5 });
  const value = fc.oneof(anyJson, edgyText, fc.emailAddress(), fc.webUrl(), fc.uuid());
  return fc.record(
    {
      known: fc.dictionary(fc.constantFrom(...names), value, { maxKeys: names.length }),
      extra: fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 3 }),
    },
  ).map(({ known, extra }) => ({ ...extra, ...known }));
}

function body(route: RouteSpec): fc.Arbitrary<{ text: string; protoKey: boolean }> {
  return fc.oneof(
    { weight: 4, arbitrary: schemaShaped(route.body).map((v) => ({ text: JSON.stringify(v), protoKey: false })) },
    { weight: 2, arbitrary: anyJson.map((v) => ({ text: JSON.stringify(v) ?? 'null', protoKey: false })) },
    { weight: 1, arbitrary: nested.map((text) => ({ text, protoKey: false })) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTO_BODIES).map((text) => ({ text, protoKey: true })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((s) => ({ text: `${s}{"broken":`, protoKey: false })) },
  );
}

/** Header values a real client can send: printable ASCII and Latin-1, no CR or LF (no server would accept those). */
const headerText = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength });

const credentials = fc.oneof(
  fc.constant({}),
  fc.record({ authorization: fc.oneof(headerText(60), headerText(40).map((t) => `Bearer ${t}`), fc.constantFrom('Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', 'bearer x.y.z')) }),
  // Long enough to be refused; hostileRequest keeps the whole head within what a server reads.
  fc.integer({ min: 4_000, max: 10_000 }).map((n) => ({ authorization: `Bearer ${'a'.repeat(n)}` })),
  fc.record({ 'x-api-key': headerText(80) }),
  fc.record({ 'x-admin-key': headerText(80) }),
  fc.record({ 'x-correlation-id': headerText(300) }),
  fc.record({ 'stripe-signature': headerText(120), 'svix-signature': headerText(60), 'x-cal-signature-256': headerText(64) }),
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', '') },
);

/** Query parameters: the route's own with hostile values, and ones that try to steer a redirect elsewhere. */
function query(route: RouteSpec): fc.Arbitrary<Record<string, string>> {
  const own = Object.keys(((route.query as { properties?: object } | undefined)?.properties ?? {}) as object);
  const names = [...own, 'redirect', 'next', 'return_to', 'url', 'plan', 'success_url'];
  const value = fc.oneof(edgyText.filter((s) => s.length < 2_000), fc.webUrl(), fc.constantFrom('//evil.example', 'https://evil.example/x', 'javascript:alert(1)', 'starter', 'pro', 'free'));
  return fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 3 });
}

/** A path with each {param} replaced by a hostile segment (longer than any key may be, too). */
function path(route: RouteSpec): fc.Arbitrary<{ path: string; pathParams: Record<string, string> }> {
  const params = [...route.path.matchAll(/\{([^}+]+)\}/g)].map((m) => m[1]!);
  if (params.length === 0) return fc.constant({ path: route.path, pathParams: {} });
  const segment = fc.oneof(
    fc.uuid(),
    fc.string({ minLength: 1, maxLength: 60 }),
    fc.constantFrom('..', '%2e%2e', '0', '-1', 'a'.repeat(500), 'a'.repeat(3_000), 'é'.repeat(700)),
  );
  return fc.array(segment, { minLength: params.length, maxLength: params.length }).map((values) => ({
    path: params.reduce((p, name, i) => p.replace(`{${name}}`, encodeURIComponent(values[i]!)), route.path),
    pathParams: Object.fromEntries(params.map((name, i) => [name, values[i]!])),
  }));
}

export function hostileRequest(route: RouteSpec): fc.Arbitrary<HostileRequest> {
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  return fc
    .record({
      path: path(route),
      query: query(route),
      credentials,
      contentType,
      body: hasBody ? body(route).map((b) => b as { text: string; protoKey: boolean } | undefined) : fc.constant(undefined),
    })
    .map(({ path: { path, pathParams }, query, credentials, contentType, body }) => ({
      method: route.method,
      path,
      pathParams,
      query,
      headers: { ...credentials, ...(body && contentType ? { 'content-type': contentType } : {}) },
      body: body?.text,
      protoKey: Boolean(body?.protoKey) && contentType.startsWith('application/json') && route.body !== undefined && !route.rawBody,
    }))
    .filter(fitsRequestHead);
}

/**
 * Request line and headers within the 16 KB a Node server reads (the local
 * gateway answers a bare 400 past it, as API Gateway refuses past its own
 * 10 KB quota): anything larger never reaches a function, so it says nothing
 * about ours. Matters for routes with two path parameters and a long token.
 */
const REQUEST_HEAD_LIMIT = 15_000;
function fitsRequestHead(req: HostileRequest): boolean {
  const search = new URLSearchParams(req.query).toString();
  const line = `${req.method} ${req.path}?${search} HTTP/1.1`;
  const headers = Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v, 'latin1') + 4, 0);
  return Buffer.byteLength(line) + headers <= REQUEST_HEAD_LIMIT;
}
