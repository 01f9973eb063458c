// Who may read and refresh crawler intelligence: the admin dashboard's
// backend with the admin key (x-admin-key), or a signed-in user whose
// app_metadata says role "admin". app_metadata, unlike user_metadata, can
// only be written with the identity provider's service-role key, so a user
// cannot make themselves an admin.
import { Forbidden } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import { keyOrUser } from '../identity/key-or-user.ts';

export const ADMIN_ROLE = 'admin';

export type Admin = { kind: 'admin-key' } | { kind: 'user'; userId: string; email: string };

export interface AdminAccessDeps {
  identity: Pick<IdentityProvider, 'userForAccessToken'>;
  adminApiKey: string | undefined;
}

export async function requireAdmin(deps: AdminAccessDeps, headers: Record<string, string | undefined>): Promise<Admin> {
  const caller = await keyOrUser(deps.identity, headers, {
    header: 'x-admin-key',
    key: deps.adminApiKey,
    keyName: 'admin key',
    missing: 'Send the admin key (x-admin-key) or the bearer token of an admin user',
  });
  if (caller.kind === 'key') return { kind: 'admin-key' };
  if (caller.user.appMetadata.role !== ADMIN_ROLE) throw new Forbidden('Crawler intelligence is for admins only');
  return { kind: 'user', userId: caller.user.id, email: caller.user.email };
}
