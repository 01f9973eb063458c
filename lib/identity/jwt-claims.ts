// Reading the claims of a provider-issued JWT WITHOUT verifying its signature.
// Only ever trust them for a token the provider itself has just accepted (the
// service holds no signing key: on Supabase, new projects sign asymmetrically
// and the secret never leaves the provider).

export interface AccessTokenClaims {
  /** The user id. */
  sub: string;
  /** Issued at / expires at, epoch seconds. */
  iat: number;
  exp: number;
  sessionId?: string;
  /** How the session began: the methods of its `amr` claim, e.g. password, recovery, otp. */
  authMethods: string[];
  /**
   * When a recovery link opened the session (epoch seconds): the time of its recovery entry in `amr`.
   * Every token of the session carries that entry unchanged, a refreshed one too, whose `iat` is new
   * (supabase/auth tokens/service.go, GenerateAccessToken: amr comes from the session's claims).
   * Absent for a login's session, and for an entry without its time (RFC 8176's plain strings).
   */
  recoveryOpenedAt?: number;
}

/**
 * Sessions a recovery link opens: `otp` in current GoTrue, which issues every
 * session an e-mailed link opens (implicit flow) as models.OTP (supabase/auth
 * internal/api/verify.go), and `recovery` for the PKCE flow's code exchange.
 * Both prove control of the mailbox, as a reset needs. A password login says
 * `password`, and a refreshed session keeps the methods it began with.
 */
const RECOVERY_METHODS = new Set(['recovery', 'otp']);

/** Whether the token's session was opened by a recovery link, not by a login. */
export const openedByRecovery = (claims: Pick<AccessTokenClaims, 'authMethods'>): boolean =>
  claims.authMethods.some((method) => RECOVERY_METHODS.has(method));

// A segment as supabase-js's decodeJWT accepts it (auth-js lib/constants.ts, BASE64URL_REGEX):
// base64url, unpadded, of a length a whole number of bytes can have.
const SEGMENT = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A segment's JSON object; undefined for invalid UTF-8 (which decodeJWT throws on), invalid JSON or anything but an object. */
function jsonSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(UTF8.decode(Buffer.from(segment, 'base64url')));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The claims of a well-formed JWT with sub, iat and exp; undefined for
 * anything else. Well-formed as supabase-js decodes it before it asks the
 * provider (decodeJWT, in setSession): a token it would throw on locally, an
 * error the provider never saw, is no token here either.
 */
export function readAccessTokenClaims(token: string): AccessTokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => p && SEGMENT.test(p))) return undefined;
  if (!jsonSegment(parts[0]!)) return undefined;
  const payload = jsonSegment(parts[1]!);
  if (!payload) return undefined;
  const { sub, iat, exp, session_id: sessionId, amr } = payload;
  if (typeof sub !== 'string' || !sub || typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  const entries = amrEntries(amr);
  const recoveryTimes = entries.flatMap((e) => (RECOVERY_METHODS.has(e.method) && e.timestamp !== undefined ? [e.timestamp] : []));
  return {
    sub,
    iat,
    exp,
    ...(typeof sessionId === 'string' ? { sessionId } : {}),
    authMethods: entries.map((e) => e.method),
    ...(recoveryTimes.length ? { recoveryOpenedAt: Math.max(...recoveryTimes) } : {}),
  };
}

/**
 * The entries of the amr claim: GoTrue writes [{method, timestamp}], RFC 8176 plain strings (no time).
 * Anything else names no method; a timestamp that is no finite number is no time.
 */
function amrEntries(amr: unknown): { method: string; timestamp?: number }[] {
  if (!Array.isArray(amr)) return [];
  return amr.flatMap((entry) => {
    if (typeof entry === 'string') return [{ method: entry }];
    const { method, timestamp } = (entry && typeof entry === 'object' ? entry : {}) as { method?: unknown; timestamp?: unknown };
    if (typeof method !== 'string') return [];
    return [typeof timestamp === 'number' && Number.isFinite(timestamp) ? { method, timestamp } : { method }];
  });
}
