// Every HTTP route of the service. Each capability declares its routes next to
// its schemas; this list joins them for the OpenAPI document, for telling a
// wrong method (405) from an unknown path (404), and for the functions that
// serve them: infra/functions.ts makes each route's function and its httpApi
// event from its `lambda` at package time.
import { accountRoutes } from '../accounts/routes.ts';
import { authRoutes } from '../auth/routes.ts';
import { checkoutRoutes } from '../checkout/routes.ts';
import { crawlerRoutes } from '../crawler/routes.ts';
import { enhancedOnboardingRoutes } from '../enhanced-onboarding/routes.ts';
import { healthRoutes } from '../health/routes.ts';
import type { RouteSpec } from '../http/route.ts';
import type { LambdaSpec } from '../lambda-spec.ts';
import { onboardingRoutes } from '../onboarding/routes.ts';
import { paymentRoutes } from '../payments/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { docsRoutes } from './routes.ts';

/** A route the service deploys: it names the function that serves it. */
export type DeployedRoute = RouteSpec & { lambda: LambdaSpec };

export const catalog: readonly DeployedRoute[] = [
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
