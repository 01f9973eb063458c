import { normaliseEmail } from '../accounts/accounts.ts';
import { Forbidden, Unauthenticated } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rule, toPublicSession, toPublicUser, type AuthSettings } from './auth.ts';

export interface LogInDeps {
  identity: Pick<IdentityProvider, 'signIn'>;
  limiter: RateLimiter;
  settings: Pick<AuthSettings, 'rateLimits'>;
}

/**
 * Signs in with e-mail and password, counted per client IP against credential
 * stuffing. A wrong password and an unknown address get the same 401; an
 * unverified address 403.
 */
export async function logIn(deps: LogInDeps, request: { email: string; password: string; clientIp: string }) {
  await enforceRateLimits(deps.limiter, [{ rule: rule('login-ip', deps.settings.rateLimits.login), subject: request.clientIp }]);
  const result = await deps.identity.signIn(normaliseEmail(request.email), request.password);
  if (result.outcome === 'invalid-credentials') throw new Unauthenticated('The e-mail address or password is wrong', 'invalid_credentials');
  if (result.outcome === 'email-not-confirmed') throw new Forbidden('Verify your e-mail address before you log in', 'email_not_confirmed');
  return { session: toPublicSession(result.session), user: toPublicUser(result.user) };
}
