// What the auth functions need beyond single stores and adapters: their
// settings, and a mailer that is always there.
import type { AuthSettings } from '../auth/auth.ts';
import { ConfigError, passwordResetRedirect, portalUrls, rateLimitSettings, tokenSettings } from '../config.ts';
import type { Mailer } from '../integrations/mailer.ts';
import { mailer } from './adapters.ts';

export const authSettings = (): AuthSettings => ({
  portalUrl: portalUrls().portal,
  signupUrl: `${portalUrls().dashboard}/signup`,
  passwordResetRedirect: passwordResetRedirect(),
  ...tokenSettings(),
  rateLimits: rateLimitSettings(),
});

/** Auth cannot work without sending e-mail: without Resend settings every send fails as misconfiguration. */
export const authMailer = (): Mailer =>
  mailer('person') ?? {
    send: async () => {
      throw new ConfigError('RESEND_API_KEY is not set: authentication e-mails cannot be sent');
    },
  };
