// The identity provider as the rest of the service sees it. Supabase Auth in
// production, the local GoTrue emulator in the local stack: the same adapter
// (supabase-js) talks to both.
//
// Expected refusals (wrong password, unknown token, taken address, a password
// the provider finds weak) are answers, not exceptions. The adapter throws
// RateLimited when the provider throttles, VendorError when it fails, and
// ConfigError when admin work is asked of it without the service-role key.

export interface IdentityUser {
  id: string;
  email: string;
  emailConfirmed: boolean;
  appMetadata: Record<string, unknown>;
  userMetadata: Record<string, unknown>;
}

export interface IdentitySession {
  accessToken: string;
  refreshToken: string;
  tokenType: string;
  /** Seconds the access token is valid for, and when that ends (epoch seconds). */
  expiresIn: number;
  expiresAt: number;
}

export interface NewRegistration {
  email: string;
  password: string;
  /** Kept as the user's metadata at the provider. */
  metadata: Record<string, string>;
}

export type Registration =
  /** A user this very call created: the only one a failed signup may delete again. */
  | { outcome: 'registered'; user: IdentityUser }
  /** The address is taken, confirmed or not; the provider may hide whose it is, and nothing about that user changed. */
  | { outcome: 'already-registered' }
  /** The provider's own rules refused the password or the address. */
  | { outcome: 'weak-password' }
  | { outcome: 'invalid-email' }
  /** The provider's mailer may not write to this address (Supabase's default SMTP: the project team only). */
  | { outcome: 'address-not-authorized' };

export type SignIn =
  | { outcome: 'signed-in'; session: IdentitySession; user: IdentityUser }
  /** Wrong password and unknown address alike. */
  | { outcome: 'invalid-credentials' }
  | { outcome: 'email-not-confirmed' };

/**
 * 'refused': the provider will not change it in this session for the
 * account's own protection (a second factor the session has not passed, a
 * reauthentication, an account managed by single sign-on). Unlike 'failed',
 * that is a decision: nothing may override it.
 */
export type PasswordChange = 'changed' | 'weak-password' | 'same-password' | 'refused' | 'failed';

/** A session opened with a recovery token, held for one request. */
export interface RecoverySession {
  user: IdentityUser;
  /** Sets the password through the session itself; 'failed' when the provider could not, 'refused' when it would not. */
  updatePassword(password: string): Promise<PasswordChange>;
}

export interface IdentityProvider {
  /**
   * The user an access token belongs to, asked of the provider itself, so a
   * token that is malformed, expired or revoked (logged out) gives undefined.
   */
  userForAccessToken(accessToken: string): Promise<IdentityUser | undefined>;

  /**
   * Registers a user whose e-mail address still has to be confirmed. An
   * address already registered, confirmed or not, is 'already-registered'
   * and changes nothing: not its user, not its password.
   */
  register(registration: NewRegistration): Promise<Registration>;

  signIn(email: string, password: string): Promise<SignIn>;

  /**
   * Ends every session of the token's user, revoking their refresh tokens, so
   * the token itself stops working; false when the token was not valid.
   */
  endSessions(accessToken: string): Promise<boolean>;

  /**
   * Removes a user for good (admin interface), e.g. to undo a registration
   * whose signup failed afterwards; false when there is no such user.
   */
  deleteUser(userId: string): Promise<boolean>;

  /**
   * The user holding this e-mail address (admin interface), confirmed or not;
   * undefined when no user has it.
   */
  userByEmail(email: string): Promise<IdentityUser | undefined>;

  /** Marks the user's e-mail address confirmed (admin interface); undefined when there is no such user. */
  confirmEmail(userId: string): Promise<IdentityUser | undefined>;

  /** Whether recovery links can be generated here: that needs the admin interface. */
  readonly canCreateRecoveryLinks: boolean;

  /**
   * A password-recovery link (admin interface) that opens a recovery session
   * and lands on `redirectTo`; undefined when no user has this address.
   */
  createRecoveryLink(email: string, redirectTo: string): Promise<string | undefined>;

  /** Has the provider send its own recovery e-mail; an unknown address gets the same silent success. */
  sendRecoveryEmail(email: string, redirectTo: string): Promise<void>;

  /**
   * Opens a session with a recovery (access) token; undefined when the token
   * is invalid, expired or revoked, or is the token of a session a login opened.
   */
  openRecoverySession(recoveryToken: string): Promise<RecoverySession | undefined>;

  /** Sets a user's password through the admin interface. */
  setPasswordAsAdmin(userId: string, password: string): Promise<PasswordChange>;
}
