// The checkout functions' settings.
import type { CheckoutSettings } from '../checkout/start-checkout.ts';
import { portalUrls, rateLimitSettings } from '../config.ts';

export const checkoutSettings = (): CheckoutSettings => ({
  dashboardUrl: portalUrls().dashboard,
  publicSessionLimit: rateLimitSettings().checkoutSession,
});
