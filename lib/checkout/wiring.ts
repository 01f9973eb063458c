// How the checkout Lambdas build their dependencies from configuration, once
// per Lambda instance (SDK clients included), reused by warm invocations.
import { config } from '../config.ts';
import { dynamodbRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import { db, tables } from '../store/dynamodb.ts';
import type { CheckoutSettings } from './start-checkout.ts';

export { accountStore, billingStore, payments } from '../payments/wiring.ts';

export const settings: CheckoutSettings = {
  dashboardUrl: config.urls.dashboard,
  publicSessionLimit: config.rateLimits.checkoutSession,
};

export const rateLimiter = () => dynamodbRateLimiter({ db, tables });
