// Every HTTP route of the service. Each capability declares its routes next to
// its schemas; this list joins them for the OpenAPI document and for telling a
// wrong method (405) from an unknown path (404). A test checks it against the
// httpApi events of serverless.yml, so neither can drift from the other.
import { accountRoutes } from '../accounts/routes.ts';
import { authRoutes } from '../auth/routes.ts';
import { checkoutRoutes } from '../checkout/routes.ts';
import { crawlerRoutes } from '../crawler/routes.ts';
import { enhancedOnboardingRoutes } from '../enhanced-onboarding/routes.ts';
import { healthRoutes } from '../health/routes.ts';
import type { RouteSpec } from '../http/route.ts';
import { onboardingRoutes } from '../onboarding/routes.ts';
import { paymentRoutes } from '../payments/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { docsRoutes } from './routes.ts';

export const catalog: readonly RouteSpec[] = [
  ...Object.values(healthRoutes),
  ...Object.values(docsRoutes),
  ...Object.values(onboardingRoutes),
  ...Object.values(authRoutes),
  ...Object.values(accountRoutes),
  ...Object.values(checkoutRoutes),
  ...Object.values(paymentRoutes),
  ...Object.values(webhookRoutes),
  ...Object.values(enhancedOnboardingRoutes),
  ...Object.values(crawlerRoutes),
];
