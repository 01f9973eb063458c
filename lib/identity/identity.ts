// The identity provider as the rest of the service sees it. Supabase Auth in
// production, the local GoTrue emulator in the local stack: the same adapter
// (supabase-js) talks to both.

export interface IdentityUser {
  id: string;
  email: string;
  emailConfirmed: boolean;
  appMetadata: Record<string, unknown>;
  userMetadata: Record<string, unknown>;
}

export interface IdentityProvider {
  /**
   * The user an access token belongs to, asked of the provider itself, so a
   * token that is malformed, expired or revoked (logged out) gives undefined.
   */
  userForAccessToken(accessToken: string): Promise<IdentityUser | undefined>;
}
