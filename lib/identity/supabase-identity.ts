// The identity provider through supabase-js (Supabase Auth on AWS, the GoTrue
// emulator locally). Only its auth client (GoTrueClient, configured as
// createClient configures it) is built: createClient would also build the
// database, storage and realtime clients for nothing. Two clients live as long
// as the Lambda instance, the anonymous key's and the service-role key's, and
// are only called with an explicit token or key, never "the current session";
// a password change in a recovery session gets a client of its own for that call.
import { randomUUID } from 'node:crypto';
import { GoTrueClient, isAuthRetryableFetchError, type AuthError, type Session, type User } from '@supabase/supabase-js';
import { ConfigError } from '../config.ts';
import { RateLimited, VendorError } from '../errors.ts';
import { httpTransport, type HttpTransport } from '../integrations/http-transport.ts';
import { AttemptFailed, withRetries, type RetryPolicy } from '../integrations/retry.ts';
import { goTrueFetch } from './gotrue-fetch.ts';
import { openedByRecovery, readAccessTokenClaims } from './jwt-claims.ts';
import type { IdentityProvider, IdentitySession, IdentityUser, PasswordChange, RecoverySession, Registration } from './identity.ts';

export interface SupabaseSettings {
  url: string;
  anonKey: string;
  serviceRoleKey?: string;
}

type Policy = RetryPolicy & { timeoutMs: number };

/** How the provider answered, once retries of transient failures are over. */
type Answer<T> = { ok: true; data: T } | { ok: false; status: number; code?: string; message: string };
type SdkResult = { data: unknown; error: AuthError | null };
/** The data of an SDK result that has no error. */
type Success<R extends SdkResult> = [Extract<R, { error: null }>] extends [never] ? R['data'] : Extract<R, { error: null }>['data'];

// GoTrue says how long its per-address e-mail limit lasts only in the message
// ("For security purposes, you can only request this after N seconds."); its
// project-wide e-mail limit says "email rate limit exceeded" instead.
const WAIT_IN_MESSAGE = /after (\d+) seconds/;
const PER_ADDRESS_WAIT = /only request this after \d+ seconds/;
/** How far apart a user's creation and its first confirmation e-mail can be within one signup request. */
const SAME_REQUEST_MS = 5000;
const DEFAULT_THROTTLE_SECONDS = 60;
/** A page of the admin user list, when looking a user up by e-mail: more than a page holds only addresses that contain it. */
const USERS_PER_PAGE = 100;

// setSession insists on a refresh token, which it uses only to renew an
// expired access token; expired tokens never get that far (see below).
const NO_REFRESH_TOKEN = 'not-used';

export function supabaseIdentity(settings: SupabaseSettings, policy: Policy, transport: HttpTransport = httpTransport): IdentityProvider {
  const authUrl = new URL('auth/v1', settings.url.endsWith('/') ? settings.url : `${settings.url}/`).href;
  const authClient = (key: string, query: Record<string, string> = {}) =>
    new GoTrueClient({
      url: authUrl,
      headers: { Authorization: `Bearer ${key}`, apikey: key },
      persistSession: false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      // supabase-js sets no timeout of its own; a hung provider must not hang the request.
      fetch: goTrueFetch(transport, query, policy.timeoutMs),
    });
  const anon = authClient(settings.anonKey);
  const admin = settings.serviceRoleKey ? authClient(settings.serviceRoleKey) : undefined;

  const ask = <R extends SdkResult>(operation: string, run: () => Promise<R>): Promise<Answer<Success<R>>> =>
    withRetries('supabase', operation, policy, async () => {
      const { data, error } = await run();
      if (!error) return { ok: true, data: data as Success<R> };
      // 5xx and network failures (timeouts included) are worth another attempt; refusals are answers.
      if (isAuthRetryableFetchError(error)) {
        throw new AttemptFailed({
          transient: true,
          reason: error.status ? `answered ${error.status}` : 'could not be reached',
          status: error.status || undefined,
        });
      }
      return { ok: false, status: error.status ?? 0, code: error.code, message: error.message };
    });

  const adminClient = (purpose: string): GoTrueClient => {
    if (!admin) throw new ConfigError(`SUPABASE_SERVICE_ROLE_KEY is not set: cannot ${purpose}`);
    return admin;
  };

  /** The user with this id if it holds this address: the one an earlier attempt of the same create made. */
  const userCreatedAs = async (client: GoTrueClient, id: string, email: string): Promise<User | undefined> => {
    const answer = await ask('read a user', () => client.admin.getUserById(id));
    if (answer.ok) return answer.data.user?.email?.toLowerCase() === email.toLowerCase() ? answer.data.user : undefined;
    if (answer.status === 404 || answer.code === 'user_not_found') return undefined;
    throw refusal('read a user', answer);
  };

  return {
    canCreateRecoveryLinks: admin !== undefined,

    async userForAccessToken(accessToken) {
      // An empty token would make supabase-js look for a stored session instead.
      if (!accessToken) return undefined;
      const answer = await ask('read the user of an access token', () => anon.getUser(accessToken));
      if (answer.ok) return answer.data.user ? toIdentityUser(answer.data.user) : undefined;
      if (isRefusalOfToken(answer)) return undefined;
      throw refusal('read the user of an access token', answer);
    },

    async register({ email, password, metadata }) {
      // The admin API creates the user unconfirmed, sends nothing (our e-mail is the only one) and says
      // email_exists for any taken address, confirmed or not (admin.go, adminUserCreate).
      if (admin) {
        // The user's id is ours to choose (admin.go takes params.Id), so a create sent again after its answer
        // was lost (a timeout, a 5xx) can tell its own user, which takes the address, from anyone else's.
        const id = randomUUID();
        let sent = 0;
        const answer = await ask('create a user', () => {
          sent += 1;
          return admin.admin.createUser({ id, email, password, user_metadata: metadata, email_confirm: false });
        });
        if (answer.ok) return registered(answer.data.user, 'create a user');
        if (answer.code === 'email_exists') {
          const own = sent > 1 ? await userCreatedAs(admin, id, email) : undefined;
          return own ? registered(own, 'create a user') : { outcome: 'already-registered' };
        }
        return registrationRefusal('create a user', answer);
      }
      const answer = await ask('sign up a user', () => anon.signUp({ email, password, options: { data: metadata } }));
      if (answer.ok) {
        const user = answer.data.user;
        // A confirmed address comes back as a stand-in user with no identities; an unconfirmed one
        // registered earlier as that real user, its confirmation just sent again (signup.go).
        if (user && (user.identities?.length === 0 || !createdByThisSignup(user))) return { outcome: 'already-registered' };
        return registered(user, 'sign up a user');
      }
      // Within 60 s of an earlier confirmation e-mail: only an address someone registered has one.
      if (answer.status === 429 && PER_ADDRESS_WAIT.test(answer.message)) return { outcome: 'already-registered' };
      // Projects that auto-confirm say it outright.
      if (answer.code === 'user_already_exists') return { outcome: 'already-registered' };
      return registrationRefusal('sign up a user', answer);
    },

    async signIn(email, password) {
      const answer = await ask('sign in with a password', () => anon.signInWithPassword({ email, password }));
      if (answer.ok) {
        const { session, user } = answer.data;
        if (!session || !user) throw new VendorError('supabase', 'supabase: sign in answered without a session', { transient: false, operation: 'sign in with a password' });
        return { outcome: 'signed-in', session: toIdentitySession(session), user: toIdentityUser(user) };
      }
      if (answer.code === 'invalid_credentials') return { outcome: 'invalid-credentials' };
      if (answer.code === 'email_not_confirmed') return { outcome: 'email-not-confirmed' };
      throw refusal('sign in with a password', answer);
    },

    async endSessions(accessToken) {
      // admin.signOut needs only the user's own token; the anonymous client suffices.
      const answer = await ask('end the sessions of a user', () => anon.admin.signOut(accessToken, 'global'));
      if (answer.ok) return true;
      if (isRefusalOfToken(answer)) return false;
      throw refusal('end the sessions of a user', answer);
    },

    async deleteUser(userId) {
      const client = adminClient('delete users');
      // A hard delete: a soft-deleted user would still hold the address.
      const answer = await ask('delete a user', () => client.admin.deleteUser(userId));
      if (answer.ok) return true;
      if (answer.status === 404 || answer.code === 'user_not_found') return false;
      throw refusal('delete a user', answer);
    },

    async userByEmail(email) {
      adminClient('look users up by e-mail');
      // GoTrue's user list takes a filter (adminUsers in internal/api/admin.go: email LIKE '%' || filter || '%',
      // or user_metadata.full_name ILIKE the same, in FindUsersInAudience, models/user.go), which supabase-js's
      // admin.listUsers does not send: a client of its own adds it to the query. The address's LIKE wildcards
      // are escaped, so the filter matches only addresses that contain it; the one that equals it is the user.
      const wanted = email.toLowerCase();
      const client = authClient(settings.serviceRoleKey!, { filter: wanted.replace(/[\\%_]/g, (ch) => `\\${ch}`) });
      for (let page = 1; ; page++) {
        const answer = await ask('look a user up by e-mail', () => client.admin.listUsers({ page, perPage: USERS_PER_PAGE }));
        if (!answer.ok) throw refusal('look a user up by e-mail', answer);
        const user = answer.data.users.find((u) => u.email?.toLowerCase() === wanted);
        if (user) return toIdentityUser(user);
        if (answer.data.users.length < USERS_PER_PAGE) return undefined;
      }
    },

    async confirmEmail(userId) {
      const client = adminClient('confirm e-mail addresses');
      const answer = await ask('confirm an e-mail address', () => client.admin.updateUserById(userId, { email_confirm: true }));
      if (answer.ok) return answer.data.user ? toIdentityUser(answer.data.user) : undefined;
      if (answer.status === 404 || answer.code === 'user_not_found') return undefined;
      throw refusal('confirm an e-mail address', answer);
    },

    async createRecoveryLink(email, redirectTo) {
      const client = adminClient('generate recovery links');
      const answer = await ask('generate a recovery link', () =>
        client.admin.generateLink({ type: 'recovery', email, options: { redirectTo } }),
      );
      if (answer.ok) return answer.data.properties?.action_link ?? undefined;
      if (answer.status === 404 || answer.code === 'user_not_found') return undefined;
      throw refusal('generate a recovery link', answer);
    },

    async sendRecoveryEmail(email, redirectTo) {
      const answer = await ask('send a recovery e-mail', () => anon.resetPasswordForEmail(email, { redirectTo }));
      if (!answer.ok) throw refusal('send a recovery e-mail', answer);
    },

    async openRecoverySession(recoveryToken): Promise<RecoverySession | undefined> {
      // setSession would try to renew an expired token with a refresh token the caller does not have.
      const claims = readAccessTokenClaims(recoveryToken);
      if (!claims || claims.exp * 1000 <= Date.now()) return undefined;
      // Only a recovery link's session: any login's token would otherwise do. (The claim is trusted
      // only to refuse; the provider still has to accept the token.)
      if (!openedByRecovery(claims)) return undefined;
      const client = authClient(settings.anonKey);
      const opened = await ask('open a recovery session', () =>
        client.setSession({ access_token: recoveryToken, refresh_token: NO_REFRESH_TOKEN }),
      );
      if (!opened.ok) {
        if (isRefusalOfToken(opened)) return undefined;
        throw refusal('open a recovery session', opened);
      }
      if (!opened.data.user) return undefined;
      return {
        user: toIdentityUser(opened.data.user),
        updatePassword: async (password) => {
          try {
            const answer = await ask('update the password in a recovery session', () => client.updateUser({ password }));
            return answer.ok ? 'changed' : passwordRefusal(answer);
          } catch (error) {
            if (error instanceof VendorError) return 'failed';
            throw error;
          }
        },
      };
    },

    async setPasswordAsAdmin(userId, password) {
      const client = adminClient('set passwords');
      const answer = await ask('set a password as admin', () => client.admin.updateUserById(userId, { password }));
      if (answer.ok) return 'changed';
      const reason = passwordRefusal(answer);
      if (reason === 'weak-password' || reason === 'same-password') return reason;
      throw refusal('set a password as admin', answer);
    },
  };
}

function registered(user: User | null, operation: string): Registration {
  if (!user) throw new VendorError('supabase', `supabase: ${operation} answered without a user`, { transient: false, operation });
  return { outcome: 'registered', user: toIdentityUser(user) };
}

function registrationRefusal(operation: string, answer: { status: number; code?: string; message: string }): Registration {
  if (answer.code === 'weak_password') return { outcome: 'weak-password' };
  if (answer.code === 'validation_failed' || answer.code === 'email_address_invalid') return { outcome: 'invalid-email' };
  if (answer.code === 'email_address_not_authorized') return { outcome: 'address-not-authorized' };
  throw refusal(operation, answer);
}

/**
 * Whether the user signUp answered was created by that very call. GoTrue
 * creates a user and stamps its first confirmation e-mail in one request
 * (milliseconds apart); the real user of a repeated signup comes back with
 * the confirmation just re-sent, at least the mailer's 60 s interval after
 * the user was created. Both times are the provider's own, so no clock skew
 * enters.
 */
function createdByThisSignup(user: User): boolean {
  if (!user.confirmation_sent_at) return true;
  return Math.abs(Date.parse(user.confirmation_sent_at) - Date.parse(user.created_at)) <= SAME_REQUEST_MS;
}

/**
 * What Auth's user update (PUT /user) answers when the account's own settings
 * forbid the change in this session (supabase/auth internal/api/user.go,
 * UserUpdate): a user with a verified second factor in a session below AAL2,
 * a project that asks for a reauthentication nonce or the current password, a
 * user managed by single sign-on. The admin interface checks none of them, so
 * falling back to it would undo exactly what they protect.
 */
const PROTECTIVE_REFUSALS = new Set([
  'insufficient_aal',
  'reauthentication_needed',
  'reauthentication_not_valid',
  'current_password_required',
  'current_password_mismatch',
  'user_sso_managed',
]);

function passwordRefusal(answer: { code?: string }): PasswordChange {
  if (answer.code === 'weak_password') return 'weak-password';
  if (answer.code === 'same_password') return 'same-password';
  if (answer.code && PROTECTIVE_REFUSALS.has(answer.code)) return 'refused';
  return 'failed';
}

/**
 * A 4xx about the token itself (bad, expired, revoked, user gone): not a
 * provider failure. Supabase's API gateway refuses a wrong or missing API key
 * with a 401 that has no error code, before Auth sees the token: that is this
 * deployment misconfigured, and must not read as "every user's token is bad".
 */
function isRefusalOfToken(answer: { status: number; code?: string }): boolean {
  if (answer.status === 401 && !answer.code) return false;
  return answer.status >= 400 && answer.status < 500 && answer.status !== 429;
}

/** What an unexpected answer becomes: a throttle for the client, anything else a vendor failure. */
function refusal(operation: string, answer: { status: number; code?: string; message: string }): Error {
  if (answer.status === 429) {
    const seconds = Number(WAIT_IN_MESSAGE.exec(answer.message)?.[1] ?? DEFAULT_THROTTLE_SECONDS);
    return new RateLimited('The identity provider says too many requests; try again later', Math.max(1, seconds));
  }
  // The vendor's free text stays out: only its status and code travel.
  return VendorError.rejected('supabase', operation, { status: answer.status, vendorCode: answer.code });
}

function toIdentityUser(user: User): IdentityUser {
  return {
    id: user.id,
    email: user.email ?? '',
    emailConfirmed: Boolean(user.email_confirmed_at),
    appMetadata: user.app_metadata ?? {},
    userMetadata: user.user_metadata ?? {},
  };
}

function toIdentitySession(session: Session): IdentitySession {
  return {
    accessToken: session.access_token,
    refreshToken: session.refresh_token,
    tokenType: session.token_type,
    expiresIn: session.expires_in,
    expiresAt: session.expires_at ?? Math.floor(Date.now() / 1000) + session.expires_in,
  };
}
