// Who may read and refresh crawler intelligence: the admin dashboard's
// backend with the admin key (x-admin-key), or a signed-in user whose
// app_metadata says role "admin". app_metadata, unlike user_metadata, can
// only be written with the identity provider's service-role key, so a user
// cannot make themselves an admin.
import { Forbidden, Unauthenticated } from '../errors.ts';
import { bearerToken, secretsEqual } from '../http/credentials.ts';
import type { IdentityProvider } from '../identity/identity.ts';

export const ADMIN_ROLE = 'admin';

export type Admin = { kind: 'admin-key' } | { kind: 'user'; userId: string; email: string };

export interface AdminAccessDeps {
  identity: Pick<IdentityProvider, 'userForAccessToken'>;
  adminApiKey: string | undefined;
}

export async function requireAdmin(deps: AdminAccessDeps, headers: Record<string, string | undefined>): Promise<Admin> {
  const key = headers['x-admin-key'];
  if (key !== undefined) {
    if (secretsEqual(key, deps.adminApiKey)) return { kind: 'admin-key' };
    throw new Unauthenticated('The admin key is not valid');
  }
  const token = bearerToken(headers);
  if (!token) throw new Unauthenticated('Send the admin key (x-admin-key) or the bearer token of an admin user');
  const user = await deps.identity.userForAccessToken(token);
  if (!user) throw new Unauthenticated('The bearer token is not valid');
  if (user.appMetadata.role !== ADMIN_ROLE) throw new Forbidden('Crawler intelligence is for admins only');
  return { kind: 'user', userId: user.id, email: user.email };
}
