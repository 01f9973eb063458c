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
  const { sub, iat, exp, session_id: sessionId, amr } = payload;
  if (typeof sub !== 'string' || !sub || typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  return { sub, iat, exp, ...(typeof sessionId === 'string' ? { sessionId } : {}), authMethods: authMethodsOf(amr) };
}

/** GoTrue writes amr as [{method, timestamp}]; RFC 8176 as plain strings. Anything else names no method. */
function authMethodsOf(amr: unknown): string[] {
  if (!Array.isArray(amr)) return [];
  return amr.flatMap((entry) => {
    const method = typeof entry === 'string' ? entry : entry && typeof entry === 'object' ? (entry as { method?: unknown }).method : undefined;
    return typeof method === 'string' ? [method] : [];
  });
}
