// What the authentication use cases share: their settings, their rate-limit
// rules, and the shapes of users and sessions as clients see them.
import type { RateLimit, RateLimits } from '../config.ts';
import type { IdentitySession, IdentityUser } from '../identity/identity.ts';
import type { RateLimitRule } from '../rate-limit/rate-limiter.ts';

export interface AuthSettings {
  /** Where the e-mailed verification link points: {portalUrl}/verify?token=... */
  portalUrl: string;
  /** The dashboard's signup page, offered to an address that asked for a reset and has no account. */
  signupUrl: string;
  /** Where the password-reset link lands. */
  passwordResetRedirect: string;
  verificationTtlHours: number;
  /** How long a recovery (reset) token is honoured after it was issued. */
  recoveryTtlSeconds: number;
  rateLimits: RateLimits;
}


export const rule = (name: string, limit: RateLimit): RateLimitRule => ({ name, ...limit });

export interface PublicUser {
  id: string;
  email: string;
  email_confirmed: boolean;
  app_metadata: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

export const toPublicUser = (user: IdentityUser): PublicUser => ({
  id: user.id,
  email: user.email,
  email_confirmed: user.emailConfirmed,
  app_metadata: user.appMetadata,
  metadata: user.userMetadata,
});

export const toPublicSession = (session: IdentitySession) => ({
  access_token: session.accessToken,
  refresh_token: session.refreshToken,
  token_type: session.tokenType,
  expires_in: session.expiresIn,
  expires_at: session.expiresAt,
});
