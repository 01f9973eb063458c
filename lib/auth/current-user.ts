import { Unauthenticated } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import { toPublicUser, type PublicUser } from './auth.ts';

/** The user of a bearer token, as the provider knows it now (so a revoked token is refused). */
export async function currentUser(deps: { identity: Pick<IdentityProvider, 'userForAccessToken'> }, accessToken: string | undefined): Promise<PublicUser> {
  if (!accessToken) throw new Unauthenticated('Send the access token as Authorization: Bearer <token>');
  const user = await deps.identity.userForAccessToken(accessToken);
  if (!user) throw new Unauthenticated('The access token is invalid, expired or revoked');
  return toPublicUser(user);
}
