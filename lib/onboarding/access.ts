// Who may start or read an onboarding: the portal's backend with the internal
// service token (x-api-key), or the signed-in user the onboarding is about.
import { Unauthenticated } from '../errors.ts';
import { bearerToken, secretsEqual } from '../http/credentials.ts';
import type { IdentityProvider } from '../identity/identity.ts';

export type Caller = { kind: 'service' } | { kind: 'user'; email: string; userId: string };

export interface AccessDeps {
  identity: IdentityProvider;
  internalApiKey: string | undefined;
}

export async function identifyCaller(deps: AccessDeps, headers: Record<string, string | undefined>): Promise<Caller> {
  const key = headers['x-api-key'];
  if (key !== undefined) {
    if (secretsEqual(key, deps.internalApiKey)) return { kind: 'service' };
    throw new Unauthenticated('The API key is not valid');
  }
  const token = bearerToken(headers);
  if (!token) throw new Unauthenticated('Send the internal API key (x-api-key) or a bearer token');
  const user = await deps.identity.userForAccessToken(token);
  if (!user) throw new Unauthenticated('The bearer token is not valid');
  return { kind: 'user', email: user.email.toLowerCase(), userId: user.id };
}

/** A user may only onboard, or read the onboarding of, themselves. */
export function requireSelfOrService(caller: Caller, email: string): void {
  if (caller.kind === 'user' && caller.email !== email.toLowerCase()) {
    throw new Unauthenticated('This token belongs to another user');
  }
}
