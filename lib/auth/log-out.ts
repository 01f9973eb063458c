import { Unauthenticated } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';

/**
 * Ends every session of the token's user at the provider: its refresh tokens
 * are revoked and the access token itself is refused from then on.
 */
export async function logOut(deps: { identity: Pick<IdentityProvider, 'endSessions'> }, accessToken: string | undefined) {
  if (!accessToken) throw new Unauthenticated('Send the access token as Authorization: Bearer <token>');
  if (!(await deps.identity.endSessions(accessToken))) throw new Unauthenticated('The access token is invalid, expired or already revoked');
  return { success: true as const, message: 'Signed out' };
}
