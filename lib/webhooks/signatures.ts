// The providers' optional signatures over the raw body (vendor-contracts §8).
// Written with node:crypto rather than taken from the svix package: the three
// schemes are one HMAC-SHA256 each, the Svix one is checked against Svix's own
// published vector in the tests, and a dependency would add bundle weight and
// its own clock for what is twenty lines. Every comparison is constant-time
// and every refusal is the same 400, saying which part was wrong but never
// echoing a value.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidInput } from '../errors.ts';

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

const hmac = (key: Buffer | string, content: string) => createHmac('sha256', key).update(content, 'utf8').digest();

function sameBytes(presented: Buffer, expected: Buffer): boolean {
  // The length of an HMAC is public; only equal lengths go to the constant-time compare.
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

function fresh(timestamp: string | undefined, now: Date, toleranceSeconds: number): boolean {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp)) <= toleranceSeconds;
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

/**
 * Calendly: "Calendly-Webhook-Signature: t=<unix>,v1=<hex>", where v1 is
 * HMAC(signing key, "<t>.<body>") in hex; a stale t is refused, so a captured
 * delivery cannot be replayed later.
 */
export function verifyCalendly(signingKey: string, request: SignedRequest, now: Date): void {
  const header = request.headers['calendly-webhook-signature'];
  if (!header) throw refused('The Calendly-Webhook-Signature header is required');
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at > 0) parts.set(item.slice(0, at).trim(), [...(parts.get(item.slice(0, at).trim()) ?? []), item.slice(at + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  if (!fresh(t, now, CALENDLY_TOLERANCE_SECONDS)) throw refused('The Calendly signature timestamp is missing, malformed or stale');
  const expected = hmac(signingKey, `${t}.${request.rawBody}`);
  for (const v1 of parts.get('v1') ?? []) {
    if (/^[0-9a-f]{64}$/i.test(v1) && sameBytes(Buffer.from(v1, 'hex'), expected)) return;
  }
  throw refused('The Calendly-Webhook-Signature does not match the body');
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
