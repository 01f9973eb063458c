// The providers' signatures over the raw body (vendor-contracts §6 and §8).
// Written with node:crypto rather than taken from the svix or stripe package:
// each scheme is one HMAC-SHA256, each is checked in the tests against the
// vendor's own signer or published vector, and a dependency would add bundle
// weight and its own clock for what is twenty lines (the whole stripe package
// was most of the payment webhook's cold start). Every comparison is
// constant-time and every refusal is a 400 saying which part was wrong but
// never echoing a value.
import { timingSafeEqual } from 'node:crypto';
import { InvalidInput } from '../errors.ts';
import { hmacSha256 } from '../sha256.ts';

export interface SignedRequest {
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  rawBody: string;
}

/** Svix's own library accepts five minutes either way. */
export const SVIX_TOLERANCE_SECONDS = 300;
/** Calendly's documentation rejects signatures older than three minutes. */
export const CALENDLY_TOLERANCE_SECONDS = 180;

const refused = (message: string) => new InvalidInput(message, undefined, 'invalid_signature');

const hmac = (key: Buffer | string, content: string) => hmacSha256(key).update(content, 'utf8').digest();

function sameBytes(presented: Buffer, expected: Buffer): boolean {
  // The length of an HMAC is public; only equal lengths go to the constant-time compare.
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

const isTimestamp = (value: string | undefined): value is string => Boolean(value && /^\d{1,12}$/.test(value));

/** Whether a unix timestamp is at most `seconds` old, and (unless the future is allowed) at most that far ahead. */
function fresh(timestamp: string | undefined, now: Date, seconds: number, future: 'refused' | 'allowed' = 'refused'): boolean {
  if (!isTimestamp(timestamp)) return false;
  const age = Math.floor(now.getTime() / 1000) - Number(timestamp);
  return age <= seconds && (future === 'allowed' || -age <= seconds);
}

/** The key bytes of a Svix endpoint secret ("whsec_" + base64); undefined when it is not one. */
export function svixKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 16 ? key : undefined;
}

/**
 * Svix (Memberstack's delivery): svix-signature holds space-separated
 * "v1,<base64>" entries (several while a secret is being rotated); any v1
 * entry matching HMAC(key, "<svix-id>.<svix-timestamp>.<body>") passes, if the
 * timestamp is within five minutes of now.
 */
export function verifySvix(secret: string, request: SignedRequest, now: Date): void {
  const id = request.headers['svix-id'];
  const timestamp = request.headers['svix-timestamp'];
  const signatures = request.headers['svix-signature'];
  if (!id || !timestamp || !signatures) throw refused('The svix-id, svix-timestamp and svix-signature headers are required');
  if (!fresh(timestamp, now, SVIX_TOLERANCE_SECONDS)) throw refused('The svix-timestamp is missing, malformed or more than five minutes off');
  const key = svixKey(secret);
  if (!key) throw refused('The configured signing key is not a Svix secret');
  const expected = hmac(key, `${id}.${timestamp}.${request.rawBody}`);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version === 'v1' && value && sameBytes(Buffer.from(value, 'base64'), expected)) return;
  }
  throw refused('The svix-signature does not match the body');
}

/** Why a "t=<unix>,v1=<hex>" signature was refused, or null when it passes. */
export type TimestampedRefusal = 'malformed' | 'mismatch' | 'stale' | null;

/**
 * The scheme Stripe and Calendly share: a header "t=<unix>,v1=<hex>[,v1=…]",
 * each v1 a hex HMAC(key, "<t>.<body>"); any v1 matching passes (several while
 * a secret is being rolled). `staleAfter` says how old t may be, and whether a
 * t in the future is refused too (Calendly's check) or passes (Stripe's own
 * library only refuses an old one). A stale t is refused before any HMAC is
 * computed; a header without a v1 matches nothing.
 */
export function checkTimestampedHex(
  header: string | undefined,
  key: string,
  rawBody: string,
  now: Date,
  staleAfter: { seconds: number; future: 'refused' | 'allowed' },
): TimestampedRefusal {
  if (!header) return 'malformed';
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    const name = item.slice(0, at).trim();
    parts.set(name, [...(parts.get(name) ?? []), item.slice(at + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  if (!isTimestamp(t)) return 'malformed';
  if (!fresh(t, now, staleAfter.seconds, staleAfter.future)) return 'stale';
  const expected = hmac(key, `${t}.${rawBody}`);
  const matches = (v1: string) => /^[0-9a-f]{64}$/i.test(v1) && sameBytes(Buffer.from(v1, 'hex'), expected);
  return (parts.get('v1') ?? []).some(matches) ? null : 'mismatch';
}

/**
 * Calendly: "Calendly-Webhook-Signature: t=<unix>,v1=<hex>"; a stale t is
 * refused, so a captured delivery cannot be replayed later.
 */
export function verifyCalendly(signingKey: string, request: SignedRequest, now: Date): void {
  const header = request.headers['calendly-webhook-signature'];
  if (!header) throw refused('The Calendly-Webhook-Signature header is required');
  const refusal = checkTimestampedHex(header, signingKey, request.rawBody, now, { seconds: CALENDLY_TOLERANCE_SECONDS, future: 'refused' });
  if (refusal === 'malformed' || refusal === 'stale') throw refused('The Calendly signature timestamp is missing, malformed or stale');
  if (refusal === 'mismatch') throw refused('The Calendly-Webhook-Signature does not match the body');
}

/**
 * Cal.com: "X-Cal-Signature-256: <hex HMAC(secret, body)>". It carries no
 * timestamp, so replays are stopped by deduplication alone. Cal.com sends the
 * literal "no-secret-provided" when no secret is set: never a match.
 */
export function verifyCalCom(secret: string, request: SignedRequest): void {
  const header = request.headers['x-cal-signature-256']?.trim();
  if (!header) throw refused('The X-Cal-Signature-256 header is required');
  const expected = hmac(secret, request.rawBody);
  if (!/^[0-9a-f]{64}$/i.test(header) || !sameBytes(Buffer.from(header, 'hex'), expected)) {
    throw refused('The X-Cal-Signature-256 does not match the body');
  }
}
