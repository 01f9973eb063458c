// Every user of the identity provider, page by page, through supabase-js's
// admin API (GET /admin/users?page=&per_page=, service-role key): what a
// migration needs to tell which identity-provider user an old record's
// e-mail address belongs to. Not for request paths: it reads every user.
import { GoTrueClient } from '@supabase/supabase-js';
import { VendorError } from '../errors.ts';

const PER_PAGE = 1000;

/** Confirmed users' ids by lower-cased e-mail: an unconfirmed address proves nothing about who holds it. */
export async function confirmedUserIdsByEmail(settings: { url: string; serviceRoleKey: string }): Promise<Map<string, string>> {
  const client = new GoTrueClient({
    url: new URL('auth/v1', settings.url.endsWith('/') ? settings.url : `${settings.url}/`).href,
    headers: { Authorization: `Bearer ${settings.serviceRoleKey}`, apikey: settings.serviceRoleKey },
    persistSession: false,
    autoRefreshToken: false,
    detectSessionInUrl: false,
  });
  const ids = new Map<string, string>();
  for (let page = 1; ; page++) {
    const { data, error } = await client.admin.listUsers({ page, perPage: PER_PAGE });
    if (error) throw new VendorError('supabase', `supabase: list users answered ${error.status ?? 'no status'}`, { transient: (error.status ?? 500) >= 500, operation: 'list users', status: error.status });
    for (const user of data.users) if (user.email && user.email_confirmed_at) ids.set(user.email.toLowerCase(), user.id);
    if (data.users.length < PER_PAGE) return ids;
  }
}
