// The vendor emulators of the local stack. Each brings its routes and the
// settings that point the service at it; adding a vendor means adding it here.
import { clickupVendor } from './clickup.ts';
import { closeVendor } from './close.ts';
import { dropboxVendor } from './dropbox.ts';
import { firecrawlVendor } from './firecrawl.ts';
import type { VendorEmulator } from './host.ts';
import { pagespeedVendor } from './pagespeed.ts';
import { resendVendor } from './resend.ts';
import { slackVendor } from './slack.ts';
import { stripeVendor } from './stripe.ts';
import { supabaseVendor } from './supabase.ts';

export interface EmulatorContext {
  /** This emulator host's origin, e.g. http://localhost:10001 */
  hostUrl: string;
  /** The API's origin, for emulators that call back (payment webhooks). */
  apiUrl: string;
  /** The front ends' origins (DASHBOARD_URL, PORTAL_URL), where e-mailed links may land. */
  dashboardUrl?: string;
  portalUrl?: string;
}

export interface LocalVendor {
  create(ctx: EmulatorContext): VendorEmulator;
  /** The service settings that point at this emulator. */
  env(ctx: EmulatorContext): Record<string, string>;
}

export const localVendors: LocalVendor[] = [resendVendor, clickupVendor, dropboxVendor, slackVendor, closeVendor, supabaseVendor, stripeVendor];

// Crawler intelligence: addressed, but keyless (so unconfigured) unless a key is set; see each file.
localVendors.push(firecrawlVendor, pagespeedVendor);
