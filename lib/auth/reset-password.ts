import { Forbidden, InvalidInput, VendorError } from '../errors.ts';
import type { IdentityProvider, PasswordChange } from '../identity/identity.ts';
import { openedByRecovery, readAccessTokenClaims } from '../identity/jwt-claims.ts';
import type { Logger } from '../log.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rule, type AuthSettings } from './auth.ts';
import { assertPasswordAcceptable, passwordRefusedByProvider } from './password-policy.ts';

export interface ResetPasswordDeps {
  identity: Pick<IdentityProvider, 'openRecoverySession' | 'setPasswordAsAdmin' | 'endSessions'>;
  limiter: RateLimiter;
  settings: Pick<AuthSettings, 'recoveryTtlSeconds' | 'rateLimits'>;
  log: Logger;
  now?: () => Date;
}

export interface ResetPasswordRequest {
  password: string;
  /** The recovery token from the body or, failing that, the bearer token. */
  token: string | undefined;
  clientIp: string;
}

const invalidToken = (message: string) =>
  new InvalidInput(message, [{ path: '/body/token', message: 'is invalid, used or expired' }], 'invalid_token');

/**
 * 1. Counts the attempt per client IP (429), then checks the password rule (400).
 * 2. Refuses (400 invalid_token) a token of a session opened over an hour ago,
 *    of a session a login rather than a recovery link opened, or one the
 *    provider will not open a session with.
 * 3. Updates the password in that session; failing that, through the admin
 *    interface for the token's user (trusted as the provider just accepted it).
 *    A refusal that protects the account (second factor, SSO) stays the answer (403).
 * 4. Ends every session of the user, so the token works once.
 */
export async function resetPassword(deps: ResetPasswordDeps, request: ResetPasswordRequest) {
  await enforceRateLimits(deps.limiter, [{ rule: rule('reset-password-ip', deps.settings.rateLimits.resetPassword), subject: request.clientIp }]);
  assertPasswordAcceptable(request.password);
  if (!request.token) throw invalidToken('Send the recovery token in the body (token) or as Authorization: Bearer <token>');

  const claims = readAccessTokenClaims(request.token);
  if (!claims || !openedByRecovery(claims)) throw invalidToken('The reset link is invalid');
  const nowSeconds = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000);
  // The link's hour runs from when it opened the session, not from the token's iat: a token the session's
  // refresh token yields later is new, and still says the link opened the session (with that time).
  const openedAt = claims.recoveryOpenedAt;
  if (openedAt === undefined || openedAt + deps.settings.recoveryTtlSeconds <= nowSeconds) {
    throw invalidToken('The reset link has expired; ask for a new one');
  }

  const session = await deps.identity.openRecoverySession(request.token);
  if (!session || session.user.id !== claims.sub) throw invalidToken('The reset link is invalid, already used or expired');

  let change: PasswordChange = await session.updatePassword(request.password);
  if (change === 'refused') {
    // Never overridden through the admin interface: that would undo a second factor, for one.
    throw new Forbidden(
      "This account's security settings (a second sign-in factor, for one) do not allow its password to be changed from a reset link alone; nothing was changed",
      'password_change_refused',
    );
  }
  if (change === 'failed') {
    deps.log.warn('the recovery session could not update the password; using the admin interface', { userId: claims.sub });
    change = await deps.identity.setPasswordAsAdmin(claims.sub, request.password);
  }
  if (change === 'weak-password') throw passwordRefusedByProvider();
  if (change === 'same-password') {
    throw new InvalidInput('Choose a password different from the current one', [{ path: '/body/password', message: 'must differ from the current password' }], 'same_password');
  }
  if (change === 'failed') {
    throw new VendorError('supabase', 'supabase: the password could not be updated', { transient: true, operation: 'update a password' });
  }

  try {
    await deps.identity.endSessions(request.token);
  } catch (error) {
    // The password is changed either way; the recovery token still expires within the hour.
    deps.log.warn('the sessions could not be ended after a password reset', { userId: claims.sub, error });
  }
  return { success: true as const, message: 'Your password has been changed. Log in with the new password.' };
}
