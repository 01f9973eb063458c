// How the auth Lambdas build their dependencies. Each function file calls
// what it needs once, at cold start; the adapters themselves come from
// ../adapters.ts, built once per Lambda instance and reused by warm invocations.
import { dynamodbAccounts, dynamodbSlugs } from '../accounts/dynamodb-accounts.ts';
import { dynamodbMemberships } from '../accounts/dynamodb-memberships.ts';
import { mailer } from '../adapters.ts';
import { ConfigError, passwordResetRedirect, portalUrls, rateLimitSettings, tokenSettings } from '../config.ts';
import type { Mailer } from '../integrations/mailer.ts';
import { dynamodbRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import { db, tables } from '../store/dynamodb.ts';
import type { AuthSettings } from './auth.ts';
import { dynamodbVerificationTokens } from './dynamodb-verification-tokens.ts';

export { adminIdentity, identity } from '../adapters.ts';

export const settings = (): AuthSettings => ({
  portalUrl: portalUrls().portal,
  signupUrl: `${portalUrls().dashboard}/signup`,
  passwordResetRedirect: passwordResetRedirect(),
  ...tokenSettings(),
  rateLimits: rateLimitSettings(),
});
export const rateLimiter = () => dynamodbRateLimiter({ db, tables });
export const verificationTokens = () => dynamodbVerificationTokens({ db, tables });
export const accountStores = () => ({ accounts: dynamodbAccounts({ db, tables }), memberships: dynamodbMemberships({ db, tables }), slugs: dynamodbSlugs({ db, tables }) });

/** Auth cannot work without sending e-mail: without Resend settings every send fails as misconfiguration. */
export const authMailer = (): Mailer =>
  mailer('person') ?? {
    send: async () => {
      throw new ConfigError('RESEND_API_KEY is not set: authentication e-mails cannot be sent');
    },
  };
