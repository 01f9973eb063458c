// Who may start or read an onboarding: the portal's backend with the internal
// service token (x-api-key), or the signed-in user the onboarding is about.
import { Unauthenticated } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import { keyOrUser } from '../identity/key-or-user.ts';

export type Caller = { kind: 'service' } | { kind: 'user'; email: string; userId: string };

export interface AccessDeps {
  identity: IdentityProvider;
  internalApiKey: string | undefined;
}

export async function identifyCaller(deps: AccessDeps, headers: Record<string, string | undefined>): Promise<Caller> {
  const caller = await keyOrUser(deps.identity, headers, {
    header: 'x-api-key',
    key: deps.internalApiKey,
    keyName: 'API key',
    missing: 'Send the internal API key (x-api-key) or a bearer token',
  });
  return caller.kind === 'key' ? { kind: 'service' } : { kind: 'user', email: caller.user.email.toLowerCase(), userId: caller.user.id };
}

/** A user may only onboard, or read the onboarding of, themselves. */
export function requireSelfOrService(caller: Caller, email: string): void {
  if (caller.kind === 'user' && caller.email !== email.toLowerCase()) {
    throw new Unauthenticated('This token belongs to another user');
  }
}
