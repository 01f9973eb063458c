// Supabase Auth through supabase-js: the same code against Supabase in
// production and the local GoTrue emulator.
import { createClient, isAuthApiError } from '@supabase/supabase-js';
import { VendorError } from '../errors.ts';
import type { IdentityProvider, IdentityUser } from './identity.ts';

interface Settings {
  url: string;
  anonKey: string;
}

export function supabaseIdentity(settings: Settings): IdentityProvider {
  const client = createClient(settings.url, settings.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  return {
    async userForAccessToken(accessToken) {
      const { data, error } = await client.auth.getUser(accessToken);
      if (error) {
        // The provider refused the token (malformed, expired, revoked): not signed in.
        if (isAuthApiError(error) && error.status >= 400 && error.status < 500) return undefined;
        // It could not be asked: that is our failure, not the caller's.
        throw new VendorError('supabase', 'supabase: check the access token could not be reached', {
          transient: true,
          operation: 'check the access token',
          status: error.status,
        });
      }
      return data.user?.email ? toIdentityUser(data.user) : undefined;
    },
  };
}

export function toIdentityUser(user: {
  id: string;
  email?: string;
  email_confirmed_at?: string | null;
  app_metadata?: Record<string, unknown>;
  user_metadata?: Record<string, unknown>;
}): IdentityUser {
  return {
    id: user.id,
    email: user.email ?? '',
    emailConfirmed: Boolean(user.email_confirmed_at),
    appMetadata: user.app_metadata ?? {},
    userMetadata: user.user_metadata ?? {},
  };
}
