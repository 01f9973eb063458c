// How the checkout Lambdas build their dependencies, once per Lambda instance;
// the adapters themselves come from ../adapters.ts.
import { portalUrls, rateLimitSettings } from '../config.ts';
import { dynamodbRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import { db, tables } from '../store/dynamodb.ts';
import type { CheckoutSettings } from './start-checkout.ts';

export { accountStore, billingStore, checkoutPayments } from '../payments/wiring.ts';

export const settings: CheckoutSettings = {
  dashboardUrl: portalUrls().dashboard,
  publicSessionLimit: rateLimitSettings().checkoutSession,
};

export const rateLimiter = () => dynamodbRateLimiter({ db, tables });
