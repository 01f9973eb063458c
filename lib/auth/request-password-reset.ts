import { randomUUID } from 'node:crypto';
import { normaliseEmail } from '../accounts/accounts.ts';
import { RateLimited } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import type { Mailer } from '../integrations/mailer.ts';
import type { Logger } from '../log.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rule, type AuthSettings } from './auth.ts';
import { noAccountEmail, passwordResetEmail } from './emails.ts';

export interface RequestPasswordResetDeps {
  identity: Pick<IdentityProvider, 'canCreateRecoveryLinks' | 'createRecoveryLink' | 'sendRecoveryEmail'>;
  mailer: Mailer;
  limiter: RateLimiter;
  settings: Pick<AuthSettings, 'passwordResetRedirect' | 'recoveryTtlSeconds' | 'rateLimits' | 'signupUrl'>;
  log: Logger;
}

/** The one answer, whether or not the address has an account: nothing here may tell them apart. */
export const PASSWORD_RESET_REQUESTED = Object.freeze({
  success: true as const,
  message: 'If an account exists for this e-mail address, a password reset link is on its way.',
});

/**
 * 1. Counts per client IP (429) and per address; past the address's limit it
 *    answers as usual and sends nothing (a 429 would let anyone block a reset).
 * 2. With the admin interface: makes a recovery link and sends one e-mail either
 *    way, the link to an address with an account, a "sign up" notice to one
 *    without: the same calls in the same order, so neither the answer nor its
 *    timing tells who has an account.
 * 3. Without it: the provider sends its own reset e-mail (same landing page).
 */
export async function requestPasswordReset(deps: RequestPasswordResetDeps, request: { email: string; clientIp: string }) {
  const email = normaliseEmail(request.email);
  const { rateLimits, passwordResetRedirect } = deps.settings;
  await enforceRateLimits(deps.limiter, [{ rule: rule('forgot-password-ip', rateLimits.forgotPassword), subject: request.clientIp }]);
  if (!(await deps.limiter.hit(rule('forgot-password-email', rateLimits.perEmail), email)).allowed) {
    deps.log.info('forgot-password past the per-address limit: answered as usual, nothing sent');
    return PASSWORD_RESET_REQUESTED;
  }

  if (deps.identity.canCreateRecoveryLinks) {
    const link = await deps.identity.createRecoveryLink(email, passwordResetRedirect);
    const content = link ? passwordResetEmail(link, Math.round(deps.settings.recoveryTtlSeconds / 60)) : noAccountEmail(deps.settings.signupUrl);
    await deps.mailer.send({
      to: email,
      ...content,
      idempotencyKey: `password-reset/${randomUUID()}`,
      // Only the vendor's tag tells them apart, for the team's delivery statistics.
      kind: link ? 'password-reset' : 'password-reset-no-account',
    });
    return PASSWORD_RESET_REQUESTED;
  }

  try {
    await deps.identity.sendRecoveryEmail(email, passwordResetRedirect);
  } catch (error) {
    // The provider throttles per existing address only; passing its 429 on would tell who has an account.
    if (!(error instanceof RateLimited)) throw error;
    deps.log.warn('the identity provider throttled a recovery e-mail; answered as usual', { retryAfterSeconds: error.retryAfterSeconds });
  }
  return PASSWORD_RESET_REQUESTED;
}
