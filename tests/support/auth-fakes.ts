// In-memory fakes of the ports only the auth use cases take (the identity
// provider, verification tokens, the rate limiter) and their settings; the
// mailer, accounts and slugs are ./fakes.ts's. Each keeps what it was asked.
import type { AuthSettings } from '../../lib/auth/auth.ts';
import type { ConsumedVerification, VerificationRecord, VerificationTokenStore } from '../../lib/auth/verification-tokens.ts';
import { ConfigError } from '../../lib/config.ts';
import { RateLimited, VendorError } from '../../lib/errors.ts';
import type { IdentityProvider, IdentityUser, PasswordChange, RecoverySession, Registration } from '../../lib/identity/identity.ts';
import { openedByRecovery, readAccessTokenClaims } from '../../lib/identity/jwt-claims.ts';
import type { RateLimiter } from '../../lib/rate-limit/rate-limiter.ts';

export const settings: AuthSettings = {
  portalUrl: 'https://portal.test',
  signupUrl: 'https://dashboard.test/signup',
  passwordResetRedirect: 'https://portal.test/reset-password',
  verificationTtlHours: 24,
  recoveryTtlSeconds: 3600,
  rateLimits: {
    signup: { limit: 100, windowSeconds: 600 },
    login: { limit: 100, windowSeconds: 300 },
    loginFailures: { limit: 100, windowSeconds: 900 },
    forgotPassword: { limit: 100, windowSeconds: 900 },
    resetPassword: { limit: 100, windowSeconds: 900 },
    perEmail: { limit: 100, windowSeconds: 900 },
    checkoutSession: { limit: 100, windowSeconds: 600 },
  },
};

export const withLimits = (limits: Partial<AuthSettings['rateLimits']>): AuthSettings => ({
  ...settings,
  rateLimits: { ...settings.rateLimits, ...limits },
});

/** A JWT-shaped token with the claims the use cases read (not signed: the fake provider is the judge). */
export function fakeJwt(claims: { sub: string; iat: number; exp: number; amr?: { method: string; timestamp: number }[] }): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ ...claims, nonce: crypto.randomUUID() })}.sig`;
}

interface FakeUser {
  id: string;
  email: string;
  password: string;
  confirmed: boolean;
  metadata: Record<string, string>;
}

/** An identity provider with Supabase's observable rules, in memory. */
export class FakeIdentity implements IdentityProvider {
  users: FakeUser[] = [];
  /** Live session tokens → their user; ending a user's sessions removes all of theirs. */
  sessions = new Map<string, string>();
  recoveryEmails: { email: string; redirectTo: string }[] = [];
  /** How many recovery links it made (each one replaces the user's last, as at Supabase). */
  recoveryLinksMade = 0;
  adminPasswordSets: { userId: string; password: string }[] = [];
  canCreateRecoveryLinks = true;
  /** What the next direct (in-session) password update answers instead of doing it. */
  directUpdateAnswer: PasswordChange | undefined;
  /** Makes registrations fail the provider's own rules. */
  refuseRegistration: 'weak-password' | 'invalid-email' | 'address-not-authorized' | undefined;
  throttleNext = false;
  failNext = false;
  endSessionsFails = false;
  /** Without the service-role key the provider cannot delete users. */
  canDeleteUsers = true;
  deletedUsers: string[] = [];
  /** Every user a deletion was asked for, whether or not there was one. */
  deletionsAsked: string[] = [];
  nowSeconds = () => Math.floor(Date.now() / 1000);

  private guard(operation: string) {
    if (this.throttleNext) {
      this.throttleNext = false;
      throw new RateLimited('throttled', 42);
    }
    if (this.failNext) {
      this.failNext = false;
      throw new VendorError('supabase', `supabase: ${operation} answered 500`, { transient: true, operation });
    }
  }

  private view(u: FakeUser): IdentityUser {
    return { id: u.id, email: u.email, emailConfirmed: u.confirmed, appMetadata: { provider: 'email' }, userMetadata: { ...u.metadata } };
  }

  addUser(email: string, password: string, confirmed = true, metadata: Record<string, string> = {}): FakeUser {
    const user = { id: crypto.randomUUID(), email, password, confirmed, metadata };
    this.users.push(user);
    return user;
  }

  /** A session token for the user, issued `ageSeconds` ago and valid an hour from then; a login's unless `method` says otherwise. */
  sessionFor(user: FakeUser, ageSeconds = 0, method = 'password'): string {
    const iat = this.nowSeconds() - ageSeconds;
    const token = fakeJwt({ sub: user.id, iat, exp: iat + 3600, amr: [{ method, timestamp: iat }] });
    this.sessions.set(token, user.id);
    return token;
  }

  /** The token of the session a recovery link opens. */
  recoverySessionFor(user: FakeUser, ageSeconds = 0): string {
    return this.sessionFor(user, ageSeconds, 'otp');
  }

  private live(token: string): FakeUser | undefined {
    const userId = this.sessions.get(token);
    return userId ? this.users.find((u) => u.id === userId) : undefined;
  }

  async userForAccessToken(token: string) {
    this.guard('read a user');
    const user = this.live(token);
    return user && this.view(user);
  }

  async register({ email, password, metadata }: { email: string; password: string; metadata: Record<string, string> }): Promise<Registration> {
    this.guard('sign up');
    if (this.refuseRegistration) return { outcome: this.refuseRegistration };
    if (this.users.some((u) => u.email === email)) return { outcome: 'already-registered' };
    return { outcome: 'registered', user: this.view(this.addUser(email, password, false, metadata)) };
  }

  /** How many times a password was checked. */
  signInCalls = 0;
  async signIn(email: string, password: string) {
    this.guard('sign in');
    this.signInCalls++;
    const user = this.users.find((u) => u.email === email);
    if (!user || user.password !== password) return { outcome: 'invalid-credentials' as const };
    if (!user.confirmed) return { outcome: 'email-not-confirmed' as const };
    const accessToken = this.sessionFor(user);
    return {
      outcome: 'signed-in' as const,
      user: this.view(user),
      session: { accessToken, refreshToken: 'refresh', tokenType: 'bearer', expiresIn: 3600, expiresAt: this.nowSeconds() + 3600 },
    };
  }

  async endSessions(token: string) {
    if (this.endSessionsFails) throw new VendorError('supabase', 'supabase: end sessions answered 500', { transient: true, operation: 'end sessions' });
    const user = this.live(token);
    if (!user) return false;
    for (const [t, id] of this.sessions) if (id === user.id) this.sessions.delete(t);
    return true;
  }

  async userByEmail(email: string) {
    if (!this.canCreateRecoveryLinks) throw new ConfigError('SUPABASE_SERVICE_ROLE_KEY is not set: cannot look users up by e-mail');
    this.guard('list users');
    const user = this.users.find((u) => u.email === email);
    return user && this.view(user);
  }

  async confirmEmail(userId: string) {
    this.guard('confirm');
    const user = this.users.find((u) => u.id === userId);
    if (!user) return undefined;
    user.confirmed = true;
    return this.view(user);
  }

  async createRecoveryLink(email: string, redirectTo: string) {
    this.guard('generate link');
    this.recoveryLinksMade++;
    const user = this.users.find((u) => u.email === email);
    return user ? `https://id.test/verify?token=${crypto.randomUUID()}&type=recovery&redirect_to=${encodeURIComponent(redirectTo)}` : undefined;
  }

  async sendRecoveryEmail(email: string, redirectTo: string) {
    this.guard('recover');
    if (this.users.some((u) => u.email === email)) this.recoveryEmails.push({ email, redirectTo });
  }

  async openRecoverySession(token: string): Promise<RecoverySession | undefined> {
    this.guard('open session');
    const user = this.live(token);
    const claims = readAccessTokenClaims(token);
    if (!user || !claims || !openedByRecovery(claims)) return undefined;
    return {
      user: this.view(user),
      updatePassword: async (password) => {
        const answer = this.directUpdateAnswer;
        if (answer) return answer;
        if (password === user.password) return 'same-password';
        user.password = password;
        return 'changed';
      },
    };
  }

  async deleteUser(userId: string) {
    this.deletionsAsked.push(userId);
    if (!this.canDeleteUsers) throw new ConfigError('SUPABASE_SERVICE_ROLE_KEY is not set: cannot delete users');
    this.guard('delete user');
    const before = this.users.length;
    this.users = this.users.filter((u) => u.id !== userId);
    for (const [t, id] of this.sessions) if (id === userId) this.sessions.delete(t);
    if (this.users.length === before) return false;
    this.deletedUsers.push(userId);
    return true;
  }

  async setPasswordAsAdmin(userId: string, password: string) {
    this.guard('admin update');
    const user = this.users.find((u) => u.id === userId);
    if (!user) throw new VendorError('supabase', 'supabase: no such user', { transient: false, operation: 'admin update' });
    this.adminPasswordSets.push({ userId, password });
    user.password = password;
    return 'changed' as const;
  }
}

/** Counts hits per rule and subject; windows never end (tests that need a clock use the DynamoDB adapter). */
export class MemoryRateLimiter implements RateLimiter {
  counts = new Map<string, number>();
  async hit(rule: { name: string; limit: number; windowSeconds: number }, subject: string) {
    const key = `${rule.name}|${subject}`;
    const count = this.counts.get(key) ?? 0;
    if (count >= rule.limit) return { allowed: false, retryAfterSeconds: rule.windowSeconds };
    this.counts.set(key, count + 1);
    return { allowed: true, retryAfterSeconds: 0, remaining: rule.limit - count - 1 };
  }
  async peek(rule: { name: string; limit: number; windowSeconds: number }, subject: string) {
    const count = this.counts.get(`${rule.name}|${subject}`) ?? 0;
    return count >= rule.limit ? { allowed: false, retryAfterSeconds: rule.windowSeconds } : { allowed: true, retryAfterSeconds: 0, remaining: rule.limit - count };
  }
}

export class MemoryTokens implements VerificationTokenStore {
  rows = new Map<string, VerificationRecord & { usedAt?: string }>();
  async save(record: VerificationRecord) {
    if (this.rows.has(record.tokenHash)) throw new Error('duplicate token');
    this.rows.set(record.tokenHash, { ...record });
  }
  async consume(tokenHash: string, now: Date): Promise<ConsumedVerification | undefined> {
    const row = this.rows.get(tokenHash);
    if (!row || row.usedAt || row.expiresAt <= Math.floor(now.getTime() / 1000)) return undefined;
    row.usedAt = now.toISOString();
    return { ...row, usedAt: row.usedAt };
  }
  async restore(consumed: ConsumedVerification) {
    const row = this.rows.get(consumed.tokenHash);
    if (row?.usedAt === consumed.usedAt) delete row.usedAt;
  }
  /** Per user: links created at or before this time (ISO) are void. */
  voidBefore = new Map<string, string>();
  async voidLinksOf(userId: string, at: Date) {
    const current = this.voidBefore.get(userId);
    if (!current || current < at.toISOString()) this.voidBefore.set(userId, at.toISOString());
  }
  async isVoided({ userId, createdAt }: { userId: string; createdAt: string }) {
    const before = this.voidBefore.get(userId);
    return before !== undefined && createdAt <= before;
  }
}
