// The two ways a back-office caller proves who it is: a shared key in its own
// header (the portal's backend, the admin dashboard's backend), or the bearer
// token of a signed-in user. A key that is sent but wrong is refused outright,
// never tried as a user.
import { Unauthenticated } from '../errors.ts';
import { bearerToken, secretsEqual } from '../http/credentials.ts';
import type { IdentityProvider, IdentityUser } from './identity.ts';

export interface KeyRule {
  /** The header the key travels in, e.g. x-api-key. */
  header: string;
  /** The configured key; unset closes the key path. */
  key: string | undefined;
  /** What the key is called in errors, e.g. "API key". */
  keyName: string;
  /** The error when neither the key nor a bearer token came. */
  missing: string;
}

export async function keyOrUser(
  identity: Pick<IdentityProvider, 'userForAccessToken'>,
  headers: Record<string, string | undefined>,
  rule: KeyRule,
): Promise<{ kind: 'key' } | { kind: 'user'; user: IdentityUser }> {
  const presented = headers[rule.header];
  if (presented !== undefined) {
    if (secretsEqual(presented, rule.key)) return { kind: 'key' };
    throw new Unauthenticated(`The ${rule.keyName} is not valid`);
  }
  const token = bearerToken(headers);
  if (!token) throw new Unauthenticated(rule.missing);
  const user = await identity.userForAccessToken(token);
  if (!user) throw new Unauthenticated('The bearer token is not valid');
  return { kind: 'user', user };
}
