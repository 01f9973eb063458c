// Generators of hostile requests, shared by the in-process and the over-HTTP
// bad-input suites. Each request is built from a route of the catalog, so every
// endpoint, including ones added later, is covered.
import fc from 'fast-check';
import type { JSONSchema, RouteSpec } from '../../lib/api/route.ts';

export interface HostileRequest {
  method: string;
  path: string;
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
  fc.integer({ min: 4_000, max: 12_000 }).map((n) => ({ authorization: `Bearer ${'a'.repeat(n)}` })),
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

/** A path with each {param} replaced by a hostile segment. */
function path(route: RouteSpec): fc.Arbitrary<string> {
  const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[0]);
  if (params.length === 0) return fc.constant(route.path);
  const segment = fc.oneof(fc.uuid(), fc.string({ maxLength: 60 }), fc.constantFrom('..', '%2e%2e', 'a'.repeat(500), '0', '-1'));
  return fc.array(segment, { minLength: params.length, maxLength: params.length }).map((values) =>
    params.reduce((p, param, i) => p.replace(param, encodeURIComponent(values[i]!) || 'x'), route.path),
  );
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
    .map(({ path, query, credentials, contentType, body }) => ({
      method: route.method,
      path,
      query,
      headers: { ...credentials, ...(body && contentType ? { 'content-type': contentType } : {}) },
      body: body?.text,
      protoKey: Boolean(body?.protoKey) && contentType.startsWith('application/json') && route.body !== undefined && !route.rawBody,
    }));
}
