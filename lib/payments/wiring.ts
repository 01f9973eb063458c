// How the payment-webhook and checkout Lambdas build their payment
// dependencies from configuration, once per Lambda instance (the Stripe client
// included), reused by warm invocations.
import { dynamodbAccounts } from '../accounts/dynamodb-accounts.ts';
import { config, ConfigError } from '../config.ts';
import { dynamodbDeliveries } from '../deliveries/dynamodb-deliveries.ts';
import { interactivePolicyFrom } from '../integrations/http-client.ts';
import { dynamodbFollowUps } from '../provisioning/follow-ups.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbBilling } from './dynamodb-billing.ts';
import type { Payments } from './payments.ts';
import { stripePayments } from './stripe-payments.ts';

// A person waits on a checkout: Stripe's own retries (each with the request's idempotency key) are the interactive few.
const interactive = interactivePolicyFrom(config.vendors);

const notConfigured = () => new ConfigError('STRIPE_SECRET_KEY is not set: payments are not configured');

/** Without Stripe settings, every use of payments fails as misconfiguration (500), never as the caller's fault. */
export const payments = (): Payments =>
  config.payments
    ? stripePayments(config.payments, { timeoutMs: interactive.timeoutMs, maxNetworkRetries: Math.max(0, interactive.maxAttempts - 1) })
    : {
        sells: () => {
          throw notConfigured();
        },
        startCheckout: async () => {
          throw notConfigured();
        },
        openBillingPortal: async () => {
          throw notConfigured();
        },
        verifiedEvent: () => {
          throw notConfigured();
        },
      };

export const accountStore = () => dynamodbAccounts({ db, tables });
export const billingStore = () => dynamodbBilling({ db, tables });
/** The delivery log every inbound webhook takes its events once through (webhook_events). */
export const deliveryLog = () => dynamodbDeliveries({ db, tables });
/** The operators' list (follow_ups), where a public purchase the webhook would not link waits. */
export const followUpList = () => dynamodbFollowUps({ db, tables });
