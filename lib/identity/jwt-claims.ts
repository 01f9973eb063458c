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
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The claims of a well-formed JWT with sub, iat and exp; undefined for anything else. */
export function readAccessTokenClaims(token: string): AccessTokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return undefined;
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!payload || typeof payload !== 'object') return undefined;
  const { sub, iat, exp, session_id: sessionId } = payload;
  if (typeof sub !== 'string' || !sub || typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  return { sub, iat, exp, ...(typeof sessionId === 'string' ? { sessionId } : {}) };
}
