// The vendor emulators of the local stack. Each brings its routes and the
// settings that point the service at it. The integrations' vendors are found
// from the registry (lib/provisioning/registry.ts: each vendor's `emulator`,
// by name in `emulators` below); the identity provider, payments and the
// crawler's optional vendors are the stack's own.
import { integrations, vendors, vendorsOf, type Registry } from '../../lib/provisioning/registry.ts';
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

/** The emulators of the registry's vendors, by the name a vendor gives (VendorSpec.emulator). */
export const emulators: Readonly<Record<string, LocalVendor>> = {
  clickup: clickupVendor,
  dropbox: dropboxVendor,
  resend: resendVendor,
  slack: slackVendor,
  close: closeVendor,
};

/** Every emulator the local stack runs: each vendor an integration of the registry calls, then the stack's own. */
export function localVendorsFor(registry: Registry = { integrations, vendors }, known: Readonly<Record<string, LocalVendor>> = emulators): LocalVendor[] {
  const named = vendorsOf(Object.keys(registry.integrations), registry)
    .map((name) => registry.vendors[name]?.emulator)
    .filter((e): e is string => !!e);
  const missing = named.filter((name) => !known[name]);
  if (missing.length) throw new Error(`The registry's vendors name emulators local/emulators does not have: ${missing.join(', ')}`);
  // Crawler intelligence: addressed, but keyless (so unconfigured) unless a key is set; see each file.
  return [...named.map((name) => known[name]!), supabaseVendor, stripeVendor, firecrawlVendor, pagespeedVendor];
}

export const localVendors: LocalVendor[] = localVendorsFor();
