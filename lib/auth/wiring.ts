// How the auth Lambdas build their dependencies from configuration. Each
// function file calls what it needs once, at cold start, so SDK clients are
// created once per Lambda instance and reused by warm invocations.
import { dynamodbAccounts, dynamodbSlugs } from '../accounts/dynamodb-accounts.ts';
import { dynamodbMemberships } from '../accounts/dynamodb-memberships.ts';
import { config, ConfigError } from '../config.ts';
import { supabaseIdentity } from '../identity/supabase-identity.ts';
import { interactivePolicyFrom } from '../integrations/http-client.ts';
import type { Mailer } from '../integrations/mailer.ts';
import { resendMailer } from '../integrations/resend-mailer.ts';
import { dynamodbRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import { db, tables } from '../store/dynamodb.ts';
import { authSettings } from './auth.ts';
import { dynamodbVerificationTokens } from './dynamodb-verification-tokens.ts';

const interactivePolicy = interactivePolicyFrom(config.vendors);

export const settings = authSettings(config);
export const identityProvider = () => supabaseIdentity(config.identity, interactivePolicy);
export const rateLimiter = () => dynamodbRateLimiter({ db, tables });
export const verificationTokens = () => dynamodbVerificationTokens({ db, tables });
export const accountStores = () => ({ accounts: dynamodbAccounts({ db, tables }), memberships: dynamodbMemberships({ db, tables }), slugs: dynamodbSlugs({ db, tables }) });

/** Auth cannot work without sending e-mail: without Resend settings every send fails as misconfiguration. */
export const authMailer = (): Mailer =>
  config.email
    ? resendMailer(config.email, interactivePolicy)
    : {
        send: async () => {
          throw new ConfigError('RESEND_API_KEY is not set: authentication e-mails cannot be sent');
        },
      };
