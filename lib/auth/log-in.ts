import { randomUUID } from 'node:crypto';
import { normaliseEmail } from '../accounts/accounts.ts';
import { Forbidden, Unauthenticated } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import type { Mailer } from '../integrations/mailer.ts';
import type { Logger } from '../log.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rule, toPublicSession, toPublicUser, type AuthSettings } from './auth.ts';
import { signInsPausedEmail } from './emails.ts';

export interface LogInDeps {
  identity: Pick<IdentityProvider, 'signIn'>;
  limiter: RateLimiter;
  settings: Pick<AuthSettings, 'rateLimits' | 'portalUrl'>;
  /** Tells an address's mailbox that its sign-ins were paused. */
  mailer: Mailer;
  log: Logger;
}

const wrongCredentials = () => new Unauthenticated('The e-mail address or password is wrong', 'invalid_credentials');

/**
 * Signs in with e-mail and password. A wrong password and an unknown address
 * get the same 401; an unverified address 403. Two limits, against credential
 * stuffing and password guessing:
 * 1. attempts per client IP (429);
 * 2. failed attempts per e-mail address, from any number of IPs (OWASP ASVS
 *    5.0 V6.3). Past it, every attempt with the address is answered as a wrong
 *    password, the right one included, without asking the identity provider,
 *    until the window ends: the same for an address with an account and one
 *    without, so it tells nobody which exists. The failure that fills the
 *    window e-mails the address, once.
 */
export async function logIn(deps: LogInDeps, request: { email: string; password: string; clientIp: string }) {
  await enforceRateLimits(deps.limiter, [{ rule: rule('login-ip', deps.settings.rateLimits.login), subject: request.clientIp }]);
  const email = normaliseEmail(request.email);
  const failures = rule('login-failures', deps.settings.rateLimits.loginFailures);
  if (!(await deps.limiter.peek(failures, email)).allowed) throw wrongCredentials();
  const result = await deps.identity.signIn(email, request.password);
  if (result.outcome === 'invalid-credentials') {
    const counted = await deps.limiter.hit(failures, email);
    if (counted.allowed && counted.remaining === 0) await tellSignInsPaused(deps, email);
    throw wrongCredentials();
  }
  if (result.outcome === 'email-not-confirmed') throw new Forbidden('Verify your e-mail address before you log in', 'email_not_confirmed');
  return { session: toPublicSession(result.session), user: toPublicUser(result.user) };
}

/** The notice of a pause; the answer is a wrong password's whether or not it could be sent. */
async function tellSignInsPaused(deps: LogInDeps, email: string): Promise<void> {
  const { limit, windowSeconds } = deps.settings.rateLimits.loginFailures;
  try {
    await deps.mailer.send({
      to: email,
      ...signInsPausedEmail(`${deps.settings.portalUrl}/forgot-password`, limit, Math.ceil(windowSeconds / 60)),
      idempotencyKey: `sign-ins-paused/${randomUUID()}`,
      kind: 'sign-ins-paused',
    });
  } catch (error) {
    deps.log.warn('the notice that sign-ins with an address were paused could not be sent', { error });
  }
}
