// Supabase Auth (GoTrue) as supabase-js calls it, under /auth/v1, answering
// the way the real service does (../shared/spec/vendor-contracts.md §7, and
// supabase/auth's own source at commit bc32168, the one
// ../shared/vendor-apis/supabase-auth.json was taken from):
//   - e-mail confirmation is required: signUp answers a bare user, no session
//     (internal/api/signup.go). A repeated signUp changes neither the user nor
//     its password: a confirmed address gets an obfuscated user (fresh id, no
//     identities, not confirmed: sanitizeUser); an unconfirmed one gets its
//     confirmation e-mailed again and the REAL user back (its id, its one
//     identity, its old metadata), or, within the mailer's max frequency of
//     60 s since the last one, 429 over_email_send_rate_limit (mail.go,
//     validateSentWithinFrequencyLimit);
//   - POST /admin/users creates a user without sending anything, and answers
//     422 email_exists for any address already taken (admin.go, adminUserCreate);
//     it takes the caller's own id for the user when given one (same place);
//   - GET /admin/users lists users newest first, page by page, with Link and
//     X-Total-Count headers, 400 for a page or page size that is no unsigned
//     number (admin.go, adminUsers; pagination.go), and takes a filter: e-mail
//     LIKE '%filter%' or full_name ILIKE it (models/user.go, FindUsersInAudience);
//   - an e-mail address is judged by badoux/checkmail's format, as sent, at most
//     255 bytes (mail.go, validateEmail): `a@b` is one, `x@-bad.com` is not;
//   - POST /verify takes a token_hash alone with its type, or a code with its
//     address; type `email` spends either kind of e-mailed token (verify.go);
//   - a recovery link confirms an address not confirmed yet (verify.go,
//     recoverVerify);
//   - an address outside `authorizedAddresses` (Supabase's default SMTP only
//     mails the project's team) is refused with 400 email_address_not_authorized
//     whenever an e-mail would go to it, and nothing is created (mail.go, sendEmail);
//   - a wrong password and an unknown address both give 400 invalid_credentials;
//   - access tokens are HS256 JWTs (sub, email, session_id, exp, role, aal,
//     amr): amr names how the session began, `password` for a password
//     login and `otp` for a session an e-mailed link (confirmation, recovery,
//     magic link) opened, as verify.go's implicit flow issues them, with the
//     time it began; a refreshed token keeps that amr (tokens/service.go);
//     logout deletes sessions, so their tokens stop working at once;
//   - a new password ends the user's other sessions (PUT /user) or all of
//     them (admin API), and spends the e-mailed links still out; confirming
//     an address stamps it anew, sets user_metadata.email_verified and spends
//     the links too (models/user.go, UpdatePassword and Confirm);
//   - `redirect_to` (query, else the Referer) is honoured only for the Site
//     URL's host or a match of the URI allow list (globs, `*` within a host
//     label or path segment, `**` across them), else it silently becomes the
//     Site URL (internal/utilities/request.go, GetReferrer and IsRedirectURLValid);
//   - e-mail links (confirmation, recovery) are valid one hour and single use;
//   - passwords are compared on their first 72 bytes, as bcrypt does;
//   - errors are {code, message} with X-Supabase-Api-Version 2024-01-01 (which
//     supabase-js sends), else {code: <status>, error_code, msg}; both carry
//     x-sb-error-code. The API gateway checks the apikey header first.
// The e-mails the provider itself sends are recorded at /_local/auth-emails.
// POST /_local/supabase/recovery { email, issuedSecondsAgo } mints a recovery
// link and a recovery session as if issued that long ago, so tests can show an
// expired link being refused without waiting an hour.
// POST /_local/supabase/mfa { email } gives the user a verified second factor:
// from then on PUT /user refuses a new password with 401 insufficient_aal, as
// GoTrue does in a session below AAL2 (every session here is AAL1).
// POST /_local/supabase/backdate { email, seconds } moves the user's times
// (created, updated, e-mails sent) back, as if that much time had passed for
// them (the once-a-minute limit, the links' hour).
import { Hono, type Context } from 'hono';
import { createHash, createHmac, randomBytes, randomInt, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { declaredOnly, type Fields } from './declared.ts';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

// Fixed, so the keys stay valid across restarts of a persisted local stack.
const JWT_SECRET = 'local-gotrue-emulator-jwt-secret-not-for-production-use';
const ACCESS_TOKEN_SECONDS = 3600;
/** How long an e-mailed link (confirmation, recovery) works: the contract's "1 hour". */
const EMAIL_LINK_SECONDS = 3600;
/** GoTrue's SMTP max frequency: one e-mail of a kind per address per minute. */
const EMAIL_FREQUENCY_SECONDS = 60;
const MIN_PASSWORD_LENGTH = 6;
const BCRYPT_MAX_BYTES = 72;
const ADMIN_ROLES = new Set(['service_role', 'supabase_admin']);
/**
 * The local project's URL configuration: the dashboard as Site URL, the
 * client portal (PORTAL_URL in local/stack.ts) on the allow list, as a
 * deployment sets them (docs/deploying.md).
 */
export const LOCAL_SITE_URL = 'http://localhost:3000';
export const LOCAL_REDIRECT_ALLOW_LIST = ['http://localhost:3001/**'];

// ---- JWTs (HS256, as GoTrue signs them with its JWT secret) ----

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function signJwt(claims: Record<string, unknown>, secret = JWT_SECRET): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(claims));
  const signature = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${signature}`;
}

type JwtCheck = { claims: Record<string, any> } | { problem: string };

function verifyJwt(token: string, nowSeconds: number): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { problem: 'token is malformed: token contains an invalid number of segments' };
  const [head, body, signature] = parts as [string, string, string];
  let header: { alg?: string };
  let claims: Record<string, any>;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { problem: 'token is malformed: could not JSON decode header' };
  }
  if (header.alg !== 'HS256') return { problem: 'token is unverifiable: signing method is invalid' };
  const expected = createHmac('sha256', JWT_SECRET).update(`${head}.${body}`).digest();
  const presented = Buffer.from(signature, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    return { problem: 'token signature is invalid: signature is invalid' };
  }
  if (typeof claims.exp === 'number' && claims.exp <= nowSeconds) return { problem: 'token has invalid claims: token is expired' };
  return { claims };
}

/** The project's API keys: JWTs with role anon / service_role, like Supabase's legacy keys. */
export const SUPABASE_ANON_KEY = signJwt({ iss: 'supabase-local', ref: 'local', role: 'anon', iat: 1_700_000_000, exp: 4_102_444_800 });
export const SUPABASE_SERVICE_ROLE_KEY = signJwt({ iss: 'supabase-local', ref: 'local', role: 'service_role', iat: 1_700_000_000, exp: 4_102_444_800 });

// ---- State ----

interface StoredUser {
  id: string;
  email: string;
  password_hash: string;
  email_confirmed_at: string | null;
  confirmation_token: string | null;
  confirmation_sent_at: string | null;
  recovery_token: string | null;
  recovery_sent_at: string | null;
  last_sign_in_at: string | null;
  user_metadata: Record<string, unknown>;
  app_metadata: Record<string, unknown>;
  identity_id: string;
  created_at: string;
  updated_at: string;
  /** A verified second factor (set through /_local/supabase/mfa: the emulator enrols none, and every session it issues is AAL1). */
  mfa_verified?: boolean;
}

interface StoredSession {
  id: string;
  user_id: string;
  created_at: string;
  /**
   * The session's AMR claims (mfa_amr_claims): how it was opened and when. Every access token of the
   * session carries them as `amr`, refreshed ones too (tokens/service.go, GenerateAccessToken through
   * Session.CalculateAALAndAMR): a refresh changes `iat`, never `amr`. Sessions saved before this was
   * kept have none and read as a password login.
   */
  amr?: { method: string; timestamp: number }[];
}

interface StoredRefreshToken {
  token: string;
  session_id: string;
  revoked: boolean;
}

interface AuthEmail {
  id: string;
  to: string;
  kind: 'signup' | 'recovery';
  subject: string;
  link: string;
  otp: string;
  created_at: string;
}

interface State {
  users: StoredUser[];
  sessions: StoredSession[];
  refreshTokens: StoredRefreshToken[];
  emails: AuthEmail[];
}

const emptyState = (): State => ({ users: [], sessions: [], refreshTokens: [], emails: [] });

// ---- Helpers ----

const nowSeconds = () => Math.floor(Date.now() / 1000);
const iso = (seconds = nowSeconds()) => new Date(seconds * 1000).toISOString();
/**
 * The address format GoTrue accepts: badoux/checkmail's ValidateFormat at the version supabase/auth's
 * go.mod pins (d0a759655d62). An ASCII local part of letters, digits and .!#$%&'*+/=?^_`{|}~-; a
 * domain of one or more labels of letters, digits and inner hyphens, at most 63 long (`a@b` is one).
 */
const EMAIL_FORMAT = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const EMAIL_MAX_BYTES = 255;

/**
 * GoTrue's validateEmail (internal/api/mail.go): required, at most 255 bytes, in checkmail's format,
 * taken as sent (no trimming), then lower-cased. The address, or why not.
 */
function checkEmail(raw: unknown): { email: string } | { problem: string } {
  const email = typeof raw === 'string' ? raw : '';
  if (!email) return { problem: 'An email address is required' };
  if (Buffer.byteLength(email, 'utf8') > EMAIL_MAX_BYTES) return { problem: 'An email address is too long' };
  if (!EMAIL_FORMAT.test(email)) return { problem: 'Unable to validate email address: invalid format' };
  return { email: email.toLowerCase() };
}
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** A UUID as 36 characters with hyphens or 32 hex digits, in its canonical form; else undefined (gofrs/uuid reads a few more forms, not emulated). */
function canonicalUuid(text: string): string | undefined {
  const hex = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i.exec(text) ?? /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/i.exec(text);
  return hex ? hex.slice(1).join('-').toLowerCase() : undefined;
}

/** bcrypt only ever sees the first 72 bytes of a password; so does this hash. */
function bcryptBytes(password: string): Buffer {
  return Buffer.from(password, 'utf8').subarray(0, BCRYPT_MAX_BYTES);
}

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(bcryptBytes(password), salt, 32, { N: 1024 });
  return `${salt.toString('base64')}$${hash.toString('base64')}`;
}

function passwordMatches(password: string, stored: string): boolean {
  const [salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const candidate = scryptSync(bcryptBytes(password), Buffer.from(salt, 'base64'), 32, { N: 1024 });
  return timingSafeEqual(candidate, Buffer.from(hash, 'base64'));
}

/** GoTrue's token hash: sha224 of e-mail and one-time code, hex. */
const tokenHash = (email: string, otp: string) => createHash('sha224').update(email + otp).digest('hex');
const newOtp = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

function apiVersion2024(c: Context): boolean {
  const v = c.req.header('x-supabase-api-version');
  return !!v && /^\d{4}-\d{2}-\d{2}$/.test(v) && Date.parse(`${v}T00:00:00Z`) >= Date.parse('2024-01-01T00:00:00Z');
}

/** An error the way GoTrue sends it, in the shape the request's API version asks for. */
function authError(
  c: Context,
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  extraHeaders: Record<string, string> = {},
): Response {
  const headers: Record<string, string> = { 'x-sb-error-code': code, ...extraHeaders };
  if (apiVersion2024(c)) {
    headers['x-supabase-api-version'] = '2024-01-01';
    return c.json({ code, message, ...extra }, status as never, headers);
  }
  return c.json({ code: status, error_code: code, msg: message, ...extra }, status as never, headers);
}

function userJson(u: StoredUser) {
  return {
    id: u.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: u.email,
    email_confirmed_at: u.email_confirmed_at ?? undefined,
    phone: '',
    confirmation_sent_at: u.confirmation_sent_at ?? undefined,
    confirmed_at: u.email_confirmed_at ?? undefined,
    recovery_sent_at: u.recovery_sent_at ?? undefined,
    last_sign_in_at: u.last_sign_in_at ?? undefined,
    app_metadata: { provider: 'email', providers: ['email'], ...u.app_metadata },
    user_metadata: u.user_metadata,
    identities: [
      {
        identity_id: u.identity_id,
        id: u.id,
        user_id: u.id,
        identity_data: { email: u.email, email_verified: !!u.email_confirmed_at, phone_verified: false, sub: u.id },
        provider: 'email',
        last_sign_in_at: u.created_at,
        created_at: u.created_at,
        updated_at: u.updated_at,
        email: u.email,
      },
    ],
    created_at: u.created_at,
    updated_at: u.updated_at,
    is_anonymous: false,
  };
}

/** What signUp answers for a confirmed address (sanitizeUser): nothing about the real account. */
function obfuscatedUserJson(email: string, data: Record<string, unknown>) {
  const at = iso();
  return {
    id: randomUUID(),
    aud: 'authenticated',
    role: '',
    email,
    phone: '',
    confirmation_sent_at: at,
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: data,
    identities: [],
    created_at: at,
    updated_at: at,
    is_anonymous: false,
  };
}

/**
 * The amr method of a session an e-mailed link opened: verify.go issues its
 * implicit-flow sessions as models.OTP, whatever the link's type.
 */
const EMAIL_LINK_METHOD = 'otp';

/**
 * GoTrue's IsRedirectURLValid: the Site URL's scheme and host (any port on a
 * loopback host), a loopback IP, or a match of an allow-list glob (compiled
 * with '.' and '/' as separators) against the URL without its fragment.
 */
export function redirectAllowed(candidate: string, siteUrl: string, allowList: readonly string[]): boolean {
  let url: URL;
  let site: URL;
  try {
    url = new URL(candidate);
    site = new URL(siteUrl);
  } catch {
    return false;
  }
  // The host as written: WHATWG URL would turn a decimal IP (2130706433) into a dotted one; Go's url.Parse does not.
  const host = (/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(candidate)?.[1] ?? url.hostname).replace(/^\[|\]$/g, '').toLowerCase();
  if (host === site.hostname && url.protocol === site.protocol && (url.port === site.port || LOOPBACK_NAMES.has(host))) return true;
  if (/^[0-9]+$/.test(host)) return false;
  if (isIP(host)) return host === '::1' || host.startsWith('127.');
  if (/^https?:$/.test(url.protocol) && !/^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/.test(host)) return false;
  const withoutFragment = candidate.split('#', 1)[0]!;
  return allowList.some((pattern) => globRegExp(pattern).test(withoutFragment));
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0', '::']);

/** A gobwas/glob pattern with separators '.' and '/': `*` stays within them, `**` crosses them, `?` is one character. */
function globRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^./]*';
    else if (ch === '?') source += '[^./]';
    else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** A Postgres LIKE (or, caseless, ILIKE) pattern: % any run of characters, _ one, \ makes the next one literal. */
function sqlLike(pattern: string, caseless: boolean): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) source += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, caseless ? 'i' : '');
}

/** strconv.ParseUint(text, 10, 64): decimal digits only, below 2^64; the value or Go's error text. */
function parseUint64(text: string): bigint | string {
  if (!/^[0-9]+$/.test(text)) return `strconv.ParseUint: parsing ${JSON.stringify(text)}: invalid syntax`;
  const value = BigInt(text);
  return value < 2n ** 64n ? value : `strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`;
}

/** GoTrue's paginate (internal/api/pagination.go): page 1 and 50 a page unless given (an empty value is not given). */
function pagingOf(page: string | undefined, perPage: string | undefined): { page: bigint; perPage: bigint } | { problem: string } {
  const parsedPage = page ? parseUint64(page) : 1n;
  if (typeof parsedPage === 'string') return { problem: parsedPage };
  const parsedPerPage = perPage ? parseUint64(perPage) : 50n;
  if (typeof parsedPerPage === 'string') return { problem: parsedPerPage };
  return { page: parsedPage, perPage: parsedPerPage };
}

/** Go's url.QueryEscape: only letters, digits and -_.~ stay as they are; a space is '+'. */
const goQueryEscape = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');

/**
 * addPaginationHeaders' Link (internal/api/pagination.go): the request as GoTrue sees it (the gateway
 * strips /auth/v1), its query re-encoded in key order with `page` set: rel="next" while pages remain,
 * then rel="last".
 */
function paginationLink(request: URL, page: bigint, perPage: bigint, total: bigint): string {
  const lastPage = total / perPage + (total % perPage > 0n ? 1n : 0n);
  const path = request.pathname.replace(/^\/auth\/v1/, '');
  const at = (n: bigint) => {
    const query = new Map<string, string[]>();
    for (const [key, value] of request.searchParams) query.set(key, [...(query.get(key) ?? []), value]);
    query.set('page', [String(n)]);
    const encoded = [...query.keys()].sort().flatMap((key) => query.get(key)!.map((value) => `${goQueryEscape(key)}=${goQueryEscape(value)}`));
    return `<${path}?${encoded.join('&')}>`;
  };
  return `${lastPage > page ? `${at(page + 1n)}; rel="next", ` : ''}${at(lastPage)}; rel="last"`;
}

async function jsonBody(c: Context): Promise<Record<string, any>> {
  const body = await c.req.json().catch(() => null);
  return body && typeof body === 'object' && !Array.isArray(body) ? body : {};
}

export const SUPABASE_DIFFERENCES = [
  'Refuses (400 validation_failed) a body field or query parameter supabase-auth.json (or, where it falls short, the server\'s own params structs) does not declare, and unknown routes (404); GoTrue decodes JSON leniently and ignores unknown fields. It accepts what supabase-js sends that GoTrue ignores: the redirectTo key in generate_link bodies, and gotrue_meta_security and options in verifyOtp bodies.',
  'No e-mail change: PUT /user leaves the address as it is, and verification type email_change is refused as unknown (400).',
  'GET /admin/users pages by page and per_page only: no sort parameter, and no cursor paging (GoTrue\'s experimental keyset mode).',
  'E-mail only: no phone, OAuth, SSO, PKCE or anonymous users; sessions come from password logins and e-mailed links (implicit flow). MFA only as far as a user marked (POST /_local/supabase/mfa) as having a verified factor: no enrolment, challenge or AAL2 session, so such a user can change the password only through the admin API.',
  'Sends no e-mail: what GoTrue would send is recorded at /_local/auth-emails; passwords are hashed with scrypt, not bcrypt (the 72-byte limit is kept).',
];

const any = (...names: string[]): Fields => Object.fromEntries(names.map((name) => [name, 'any']));
/**
 * GoTrue's captchaRequest (internal/api/middleware.go): verifyCaptcha reads gotrue_meta_security.captcha_token
 * on /signup, /recover and /token. supabase-js sends it there and with every verifyOtp, where GoTrue's
 * lenient decoding ignores it; it is declared on each, and nothing else inside it.
 */
const CAPTCHA: Fields = { gotrue_meta_security: any('captcha_token') };
/** The server's AdminUserParams (admin.go): the published PUT body is the response shape, and POST /admin/users is not published. */
const ADMIN_USER_FIELDS = any('id', 'aud', 'role', 'email', 'phone', 'password', 'password_hash', 'email_confirm', 'phone_confirm', 'user_metadata', 'app_metadata', 'ban_duration');
/** redirect_to travels in the query (GetReferrer reads the form, which includes it). */
const GOTRUE_OPERATIONS = [
  { method: 'GET', path: '/health' },
  {
    method: 'POST',
    path: '/signup',
    query: ['redirect_to'],
    body: { ...any('email', 'phone', 'channel', 'password', 'data', 'code_challenge', 'code_challenge_method'), ...CAPTCHA },
  },
  {
    method: 'POST',
    path: '/token',
    query: ['grant_type'],
    body: {
      ...any(
        'refresh_token', 'password', 'email', 'phone', 'id_token', 'access_token', 'nonce', 'provider', 'client_id', 'issuer',
        'auth_code', 'code_verifier', 'message', 'signature', 'chain',
      ),
      ...CAPTCHA,
    },
  },
  { method: 'GET', path: '/user' },
  { method: 'PUT', path: '/user', body: any('email', 'phone', 'password', 'nonce', 'data', 'app_metadata', 'channel', 'code_challenge', 'code_challenge_method') },
  { method: 'POST', path: '/logout', query: ['scope'] },
  { method: 'POST', path: '/recover', query: ['redirect_to'], body: { ...any('email', 'code_challenge', 'code_challenge_method'), ...CAPTCHA } },
  { method: 'GET', path: '/verify', query: ['token', 'type', 'redirect_to'] },
  // VerifyParams (verify.go), with the captcha field, and the options that supabase-js's verifyOtp puts in the
  // body of an e-mailed code's verification (VerifyEmailOtpParams), which GoTrue ignores.
  {
    method: 'POST',
    path: '/verify',
    body: { ...any('type', 'token', 'token_hash', 'email', 'phone', 'redirect_to'), ...CAPTCHA, options: any('redirectTo', 'captchaToken') },
  },
  {
    method: 'POST',
    path: '/admin/generate_link',
    query: ['redirect_to'],
    body: any('type', 'email', 'new_email', 'password', 'data', 'redirect_to', 'redirectTo'),
  },
  { method: 'POST', path: '/admin/users', body: ADMIN_USER_FIELDS },
  // GET /admin/users in ../shared/vendor-apis/supabase-auth.json: paged by page and per_page; the server also
  // reads filter (adminUsers, internal/api/admin.go), which the published spec leaves out.
  { method: 'GET', path: '/admin/users', query: ['page', 'per_page', 'filter'] },
  { method: 'GET', path: '/admin/users/:id' },
  { method: 'PUT', path: '/admin/users/:id', body: ADMIN_USER_FIELDS },
  { method: 'DELETE', path: '/admin/users/:id', body: any('should_soft_delete') },
] as const;

export interface SupabaseEmulatorOptions {
  hostUrl: string;
  /** The project's Site URL: where e-mailed links land when `redirect_to` is not allowed. */
  siteUrl?: string;
  /** The project's redirect URL allow list (Authentication → URL Configuration), as globs. */
  redirectAllowList?: readonly string[];
  /**
   * The addresses the project's mailer may write to (Supabase's default SMTP:
   * the team's); absent, any address (a custom SMTP or Send Email hook).
   */
  authorizedAddresses?: readonly string[];
}

export function supabaseEmulator(options: SupabaseEmulatorOptions): VendorEmulator {
  let state = emptyState();
  const externalUrl = `${options.hostUrl}/auth/v1`;
  const siteUrl = options.siteUrl ?? LOCAL_SITE_URL;
  const allowList = options.redirectAllowList ?? LOCAL_REDIRECT_ALLOW_LIST;

  const userByEmail = (email: string) => state.users.find((u) => u.email === email.toLowerCase());
  const userById = (id: string) => state.users.find((u) => u.id === id);
  const touch = (u: StoredUser) => (u.updated_at = iso());

  function issueSession(user: StoredUser, method: string, issuedAt = nowSeconds()) {
    const session: StoredSession = { id: randomUUID(), user_id: user.id, created_at: iso(issuedAt), amr: [{ method, timestamp: issuedAt }] };
    state.sessions.push(session);
    return tokensFor(user, session, issuedAt);
  }

  function tokensFor(user: StoredUser, session: StoredSession, issuedAt = nowSeconds()) {
    const refresh: StoredRefreshToken = { token: randomBytes(9).toString('base64url'), session_id: session.id, revoked: false };
    state.refreshTokens.push(refresh);
    const exp = issuedAt + ACCESS_TOKEN_SECONDS;
    const access_token = signJwt({
      aud: 'authenticated',
      exp,
      iat: issuedAt,
      iss: externalUrl,
      sub: user.id,
      email: user.email,
      phone: '',
      app_metadata: userJson(user).app_metadata,
      user_metadata: user.user_metadata,
      role: 'authenticated',
      aal: 'aal1',
      amr: session.amr ?? [{ method: 'password', timestamp: Math.floor(Date.parse(session.created_at) / 1000) }],
      session_id: session.id,
      is_anonymous: false,
    });
    return { access_token, token_type: 'bearer', expires_in: ACCESS_TOKEN_SECONDS, expires_at: exp, refresh_token: refresh.token, user: userJson(user) };
  }

  /**
   * User.Confirm (models/user.go), run by every email_confirm: true and by the links that confirm:
   * the time is stamped anew, user_metadata gets email_verified: true, and every e-mailed link still
   * out stops working (ClearAllOneTimeTokensForUser).
   */
  function confirm(user: StoredUser) {
    user.email_confirmed_at = iso();
    user.user_metadata = { ...user.user_metadata, email_verified: true };
    user.confirmation_token = null;
    user.recovery_token = null;
  }

  /**
   * What a new password does besides (user.go, UpdatePassword): the e-mailed links still out stop
   * working, and the user's sessions end, all but `keep` (the session a PUT /user came in; the admin
   * API keeps none).
   */
  function passwordChanged(user: StoredUser, keep?: StoredSession) {
    user.confirmation_token = null;
    user.confirmation_sent_at = null;
    user.recovery_token = null;
    user.recovery_sent_at = null;
    endSessions(new Set(state.sessions.filter((s) => s.user_id === user.id && s.id !== keep?.id).map((s) => s.id)));
  }

  function endSessions(ids: Set<string>) {
    state.sessions = state.sessions.filter((s) => !ids.has(s.id));
    for (const r of state.refreshTokens) if (ids.has(r.session_id)) r.revoked = true;
  }

  function actionLink(hashed: string, type: string, redirectTo: string) {
    return `${externalUrl}/verify?token=${hashed}&type=${type}&redirect_to=${encodeURIComponent(redirectTo)}`;
  }

  function createUser(email: string, password: string, metadata: Record<string, unknown>, id: string = randomUUID()): StoredUser {
    const at = iso();
    const user: StoredUser = {
      id,
      email,
      password_hash: hashPassword(password),
      email_confirmed_at: null,
      confirmation_token: null,
      confirmation_sent_at: null,
      recovery_token: null,
      recovery_sent_at: null,
      last_sign_in_at: null,
      user_metadata: metadata,
      app_metadata: {},
      identity_id: randomUUID(),
      created_at: at,
      updated_at: at,
    };
    state.users.push(user);
    return user;
  }

  /** A new e-mailed one-time token (magic links use the recovery one, as in GoTrue), replacing the previous one. */
  function startEmailToken(user: StoredUser, type: 'signup' | 'recovery' | 'magiclink', redirectTo: string, issuedAt = nowSeconds()) {
    const otp = newOtp();
    const hashed = tokenHash(user.email, otp);
    if (type === 'signup') {
      user.confirmation_token = hashed;
      user.confirmation_sent_at = iso(issuedAt);
    } else {
      user.recovery_token = hashed;
      user.recovery_sent_at = iso(issuedAt);
    }
    touch(user);
    return { otp, hashed, link: actionLink(hashed, type, redirectTo) };
  }

  function recordEmail(to: string, kind: AuthEmail['kind'], link: string, otp: string) {
    const subject = kind === 'signup' ? 'Confirm Your Signup' : 'Reset Your Password';
    state.emails.push({ id: randomUUID(), to, kind, subject, link, otp, created_at: iso() });
  }

  const sentWithinFrequency = (sentAt: string | null) =>
    sentAt !== null && Date.parse(sentAt) / 1000 + EMAIL_FREQUENCY_SECONDS > nowSeconds();
  const frequencyError = (c: Context, sentAt: string) => {
    const left = Math.max(1, Math.ceil(Date.parse(sentAt) / 1000 + EMAIL_FREQUENCY_SECONDS - nowSeconds()));
    return authError(c, 429, 'over_email_send_rate_limit', `For security purposes, you can only request this after ${left} seconds.`);
  };
  const linkExpired = (sentAt: string | null) => sentAt === null || Date.parse(sentAt) / 1000 + EMAIL_LINK_SECONDS <= nowSeconds();
  /** GetReferrer: `redirect_to`, else the Referer, when allowed; else, silently, the Site URL. */
  const redirectTarget = (c: Context, candidate = c.req.query('redirect_to')) =>
    [candidate, c.req.header('referer')].find((url) => url && redirectAllowed(url, siteUrl, allowList)) ?? siteUrl;

  /** checkEmailAddressAuthorization: a label (+tag) does not matter; case does not either. */
  const mayMail = (address: string) =>
    !options.authorizedAddresses ||
    options.authorizedAddresses.some((allowed) => allowed.toLowerCase() === address.replace(/\+[^@]+@/, '@').toLowerCase());
  const notAuthorized = (c: Context, address: string) =>
    authError(c, 400, 'email_address_not_authorized', `Email address "${address}" cannot be used as it is not authorized`);

  /** GoTrue's requireAuthentication: a valid user JWT whose user and session still exist. */
  function authenticate(c: Context): { user: StoredUser; session?: StoredSession } | Response {
    const match = /^Bearer (\S+)$/i.exec(c.req.header('authorization') ?? '');
    if (!match) return authError(c, 401, 'no_authorization', 'This endpoint requires a valid Bearer token');
    const checked = verifyJwt(match[1]!, nowSeconds());
    if ('problem' in checked) return authError(c, 403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${checked.problem}`);
    const { sub, session_id: sessionId } = checked.claims;
    if (!sub) return authError(c, 403, 'bad_jwt', 'invalid claim: missing sub claim');
    const user = userById(String(sub));
    if (!user) return authError(c, 403, 'user_not_found', 'User from sub claim in JWT does not exist');
    if (!sessionId) return { user };
    const session = state.sessions.find((s) => s.id === sessionId);
    if (!session) return authError(c, 403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
    return { user, session };
  }

  /** Admin endpoints need a bearer JWT with an admin role (the service-role key). */
  function requireAdmin(c: Context): Response | undefined {
    const match = /^Bearer (\S+)$/i.exec(c.req.header('authorization') ?? '');
    if (!match) return authError(c, 401, 'no_authorization', 'This endpoint requires a valid Bearer token');
    const checked = verifyJwt(match[1]!, nowSeconds());
    if ('problem' in checked) return authError(c, 403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${checked.problem}`);
    if (!ADMIN_ROLES.has(String(checked.claims.role))) return authError(c, 403, 'not_admin', 'User not allowed');
    return undefined;
  }

  function passwordProblem(c: Context, password: unknown): Response | undefined {
    if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) {
      return authError(c, 422, 'weak_password', `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`, {
        weak_password: { reasons: ['length'] },
      });
    }
    return undefined;
  }

  const app = new Hono();
  const auth = new Hono();

  // The API gateway in front of GoTrue: every call needs a project key, except
  // the e-mailed links (GET /verify), which a browser opens.
  auth.use('*', async (c, next) => {
    if (c.req.method === 'GET' && c.req.path === '/auth/v1/verify') return next();
    const key = c.req.header('apikey');
    if (!key) return c.json({ message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' }, 401);
    if (key !== SUPABASE_ANON_KEY && key !== SUPABASE_SERVICE_ROLE_KEY) {
      return c.json({ message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' }, 401);
    }
    return next();
  });
  auth.use(
    '*',
    declaredOnly({
      base: '/auth/v1',
      operations: GOTRUE_OPERATIONS,
      refuse: (c, undeclared) =>
        undeclared.kind === 'operation'
          ? authError(c, 404, 'not_found', 'Path not found')
          : authError(c, 400, 'validation_failed', `Undeclared ${undeclared.kind === 'query' ? `query parameter ${undeclared.name}` : `field ${undeclared.path.join('.')}`}`),
    }),
  );

  auth.get('/health', (c) => c.json({ version: 'local-emulator', name: 'GoTrue', description: 'GoTrue is a user registration and authentication API' }));

  auth.post('/signup', async (c) => {
    const body = await jsonBody(c);
    // In GoTrue's order (api.go's /signup route, then signup.go): no address at all asks for an anonymous
    // user, disabled here as by default; then the password, then the address.
    if (!body.email && !body.phone) return authError(c, 422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
    if (typeof body.password !== 'string' || !body.password) return authError(c, 400, 'validation_failed', 'Signup requires a valid password');
    const weak = passwordProblem(c, body.password);
    if (weak) return weak;
    const checked = checkEmail(body.email);
    if ('problem' in checked) return authError(c, 400, 'validation_failed', checked.problem);
    const { email } = checked;
    const data = body.data && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : {};
    const redirectTo = redirectTarget(c);

    const existing = userByEmail(email);
    // A confirmed address: nothing is sent, and nothing of the real user is shown.
    if (existing?.email_confirmed_at) return c.json(obfuscatedUserJson(email, data));
    // Unconfirmed: "we can't be sure of their claimed identity", so the user, its metadata and its
    // password stay as they were; the confirmation goes out again and the real user is answered.
    if (existing && sentWithinFrequency(existing.confirmation_sent_at)) return frequencyError(c, existing.confirmation_sent_at!);
    // The e-mail is sent inside GoTrue's transaction: when it cannot go, no user is created.
    if (!mayMail(email)) return notAuthorized(c, email);
    const user = existing ?? createUser(email, body.password, data);
    const { link, otp } = startEmailToken(user, 'signup', redirectTo);
    recordEmail(email, 'signup', link, otp);
    return c.json(userJson(user));
  });

  auth.post('/token', async (c) => {
    const grant = c.req.query('grant_type');
    const body = await jsonBody(c);
    if (grant === 'password') {
      // Looked up as sent, case aside (FindUserByEmailAndAudience): a login's address is not validated.
      const email = typeof body.email === 'string' ? body.email.toLowerCase() : '';
      const password = typeof body.password === 'string' ? body.password : '';
      const user = userByEmail(email);
      // Same answer for an unknown address and a wrong password.
      if (!user || !passwordMatches(password, user.password_hash)) return authError(c, 400, 'invalid_credentials', 'Invalid login credentials');
      if (!user.email_confirmed_at) return authError(c, 400, 'email_not_confirmed', 'Email not confirmed');
      user.last_sign_in_at = iso();
      return c.json(issueSession(user, 'password'));
    }
    if (grant === 'refresh_token') {
      const presented = state.refreshTokens.find((r) => r.token === body.refresh_token);
      const session = presented && !presented.revoked ? state.sessions.find((s) => s.id === presented.session_id) : undefined;
      const user = session && userById(session.user_id);
      if (!presented || !session || !user) return authError(c, 400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      presented.revoked = true;
      return c.json(tokensFor(user, session));
    }
    return authError(c, 400, 'validation_failed', 'unsupported_grant_type');
  });

  auth.get('/user', (c) => {
    const who = authenticate(c);
    return who instanceof Response ? who : c.json(userJson(who.user));
  });

  auth.put('/user', async (c) => {
    const who = authenticate(c);
    if (who instanceof Response) return who;
    const body = await jsonBody(c);
    const user = who.user;
    if (body.password !== undefined && body.password !== null) {
      const weak = passwordProblem(c, body.password);
      if (weak) return weak;
      // A user with a verified factor changes password or e-mail only in an AAL2 session (user.go, UserUpdate):
      // no session here is one, so such a change is always refused. The admin API has no such check (admin.go).
      if (user.mfa_verified && body.password !== '') {
        return authError(c, 401, 'insufficient_aal', 'AAL2 session is required to update email or password when MFA is enabled.');
      }
      if (passwordMatches(body.password, user.password_hash)) {
        return authError(c, 422, 'same_password', 'New password should be different from the old password.');
      }
      user.password_hash = hashPassword(body.password);
      passwordChanged(user, who.session);
    }
    if (body.data && typeof body.data === 'object') user.user_metadata = { ...user.user_metadata, ...body.data };
    touch(user);
    return c.json(userJson(user));
  });

  auth.post('/logout', (c) => {
    const scope = c.req.query('scope') ?? 'global';
    if (!['global', 'local', 'others'].includes(scope)) return authError(c, 400, 'validation_failed', `Unsupported logout scope "${scope}"`);
    const who = authenticate(c);
    if (who instanceof Response) return who;
    const mine = state.sessions.filter((s) => s.user_id === who.user.id);
    const ending =
      scope === 'local' && who.session
        ? [who.session]
        : scope === 'others' && who.session
          ? mine.filter((s) => s.id !== who.session!.id)
          : mine;
    endSessions(new Set(ending.map((s) => s.id)));
    return c.body(null, 204);
  });

  auth.post('/recover', async (c) => {
    const body = await jsonBody(c);
    if (!body.email) return authError(c, 400, 'validation_failed', 'Password recovery requires an email');
    const checked = checkEmail(body.email);
    if ('problem' in checked) return authError(c, 400, 'validation_failed', checked.problem);
    const { email } = checked;
    const user = userByEmail(email);
    // An unknown address gets the same empty answer: recovery never reveals who has an account.
    if (!user) return c.json({});
    if (sentWithinFrequency(user.recovery_sent_at)) return frequencyError(c, user.recovery_sent_at!);
    if (!mayMail(email)) return notAuthorized(c, email);
    const { link, otp } = startEmailToken(user, 'recovery', redirectTarget(c));
    recordEmail(email, 'recovery', link, otp);
    return c.json({});
  });

  /**
   * Which of the user's one-time tokens a verification type spends (verify.go, verifyTokenHash):
   * `email` either kind, and the kind it matched decides what it does (signup, or magiclink for a
   * recovery token). Undefined for a type no e-mailed link carries here (no e-mail change).
   */
  const tokenKinds = (type: string): ('signup' | 'recovery')[] | undefined =>
    type === 'email' ? ['signup', 'recovery'] : type === 'signup' || type === 'invite' ? ['signup'] : type === 'recovery' || type === 'magiclink' ? ['recovery'] : undefined;

  type Refusal = { status: number; code: string; message: string };

  /**
   * Spends an e-mailed token of `user` (or of whichever user holds it) for a verification of `type`,
   * with GoTrue's answers (verify.go): the user and the type it counted as, or why not. `invalid` is
   * the 403's message: a link's ("Email link is invalid or has expired") or a typed code's.
   */
  function consumeEmailToken(type: string, hashed: string, invalid: string, holder?: StoredUser): { user: StoredUser; type: string } | Refusal {
    const kinds = tokenKinds(type);
    if (!kinds) return { status: 400, code: 'validation_failed', message: 'Invalid email verification type' };
    const holds = (u: StoredUser, kind: 'signup' | 'recovery') => (kind === 'signup' ? u.confirmation_token : u.recovery_token) === hashed;
    const user = (holder ? [holder] : state.users).find((u) => kinds.some((kind) => holds(u, kind)));
    const kind = user && kinds.find((k) => holds(user, k));
    if (!user || !kind || linkExpired(kind === 'signup' ? user.confirmation_sent_at : user.recovery_sent_at)) {
      return { status: 403, code: 'otp_expired', message: invalid };
    }
    const counted = type === 'email' ? (kind === 'signup' ? 'signup' : 'magiclink') : type;
    if (kind === 'recovery') user.recovery_token = null;
    else user.confirmation_token = null;
    // signupVerify confirms; recoverVerify confirms an address not confirmed yet (verify.go).
    if (kind === 'signup' || !user.email_confirmed_at) confirm(user);
    touch(user);
    return { user, type: counted };
  }

  const LINK_INVALID = 'Email link is invalid or has expired';

  auth.get('/verify', (c) => {
    const type = c.req.query('type') ?? '';
    const token = c.req.query('token') ?? '';
    const redirectTo = redirectTarget(c);
    if (!type) return authError(c, 400, 'validation_failed', 'Verify requires a verification type');
    if (!token) return authError(c, 400, 'validation_failed', 'Verify requires a token or a token hash');
    const outcome = consumeEmailToken(type, token, LINK_INVALID);
    const target = new URL(redirectTo);
    if (!('user' in outcome)) {
      const hash = new URLSearchParams({ error: outcome.status === 403 ? 'access_denied' : 'invalid_request', error_code: outcome.code, error_description: outcome.message });
      target.hash = hash.toString();
      return c.redirect(target.toString(), 303);
    }
    const tokens = issueSession(outcome.user, EMAIL_LINK_METHOD);
    target.hash = new URLSearchParams({
      access_token: tokens.access_token,
      expires_at: String(tokens.expires_at),
      expires_in: String(tokens.expires_in),
      refresh_token: tokens.refresh_token,
      token_type: 'bearer',
      type: outcome.type,
    }).toString();
    return c.redirect(target.toString(), 303);
  });

  // VerifyParams.Validate, then verifyTokenHash or verifyUserAndToken (verify.go): a token_hash alone
  // with its type, or an e-mailed code with its address; a session for either.
  auth.post('/verify', async (c) => {
    const body = await jsonBody(c);
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const [type, token, hash, email, phone] = ['type', 'token', 'token_hash', 'email', 'phone'].map(text) as [string, string, string, string, string];
    if (!type) return authError(c, 400, 'validation_failed', 'Verify requires a verification type');
    if (!token === !hash) return authError(c, 400, 'validation_failed', 'Verify requires either a token or a token hash');
    let outcome: ReturnType<typeof consumeEmailToken>;
    if (hash) {
      if (email || phone || text('redirect_to')) return authError(c, 400, 'validation_failed', 'Only the token_hash and type should be provided');
      outcome = consumeEmailToken(type, hash, LINK_INVALID);
    } else if (phone && !email) {
      // No user here has a phone number: the lookup finds none.
      outcome = { status: 403, code: 'otp_expired', message: 'Token has expired or is invalid' };
    } else if (email && !phone) {
      const checked = checkEmail(email);
      if ('problem' in checked) return authError(c, 422, 'validation_failed', 'Invalid email format');
      const holder = userByEmail(checked.email);
      outcome = holder && tokenKinds(type)
        ? consumeEmailToken(type, tokenHash(checked.email, token), 'Token has expired or is invalid', holder)
        : { status: 403, code: 'otp_expired', message: 'Token has expired or is invalid' };
    } else {
      return authError(c, 400, 'validation_failed', 'Only an email address or phone number should be provided on verify');
    }
    if (!('user' in outcome)) return authError(c, outcome.status, outcome.code, outcome.message);
    return c.json(issueSession(outcome.user, EMAIL_LINK_METHOD));
  });

  auth.post('/admin/generate_link', async (c) => {
    const denied = requireAdmin(c);
    if (denied) return denied;
    const body = await jsonBody(c);
    const checked = checkEmail(body.email);
    if ('problem' in checked) return authError(c, 400, 'validation_failed', checked.problem);
    const { email } = checked;
    // supabase-js puts redirectTo in the query; GoTrue reads redirect_to from there or the body.
    const redirectTo = redirectTarget(c, c.req.query('redirect_to') ?? body.redirect_to);
    const data = body.data && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : undefined;
    let user = userByEmail(email);
    let type = String(body.type ?? '');
    if (!['recovery', 'magiclink', 'signup'].includes(type)) return authError(c, 400, 'validation_failed', `Invalid email action link type requested: ${type}`);
    if (type === 'recovery' && !user) return authError(c, 404, 'user_not_found', 'User with this email not found');
    if (type === 'magiclink' && !user) type = 'signup';
    if (type === 'signup') {
      if (user?.email_confirmed_at) return authError(c, 422, 'email_exists', 'A user with this email address has already been registered');
      if (!user) {
        const password = typeof body.password === 'string' && body.password ? body.password : randomBytes(32).toString('base64url');
        const weak = passwordProblem(c, password);
        if (weak) return weak;
        user = createUser(email, password, data ?? {});
      } else if (data) {
        user.user_metadata = { ...user.user_metadata, ...data };
      }
    }
    const { otp, hashed, link } = startEmailToken(user!, type as 'signup' | 'recovery' | 'magiclink', redirectTo);
    // Generating a link sends nothing: the caller sends its own e-mail.
    return c.json({ ...userJson(user!), action_link: link, email_otp: otp, hashed_token: hashed, verification_type: type, redirect_to: redirectTo });
  });

  // adminUserCreate: no e-mail, no password rule (only bcrypt's 72 bytes), email_exists for any taken address.
  auth.post('/admin/users', async (c) => {
    const denied = requireAdmin(c);
    if (denied) return denied;
    const body = await jsonBody(c);
    if (!body.email) return authError(c, 400, 'validation_failed', 'Cannot create a user without either an email or phone');
    const checked = checkEmail(body.email);
    if ('problem' in checked) return authError(c, 400, 'validation_failed', checked.problem);
    const { email } = checked;
    if (userByEmail(email)) return authError(c, 422, 'email_exists', 'A user with this email address has already been registered');
    const password = typeof body.password === 'string' && body.password ? body.password : randomBytes(48).toString('base64url');
    if (Buffer.byteLength(password, 'utf8') > BCRYPT_MAX_BYTES) return authError(c, 400, 'validation_failed', 'bcrypt: password length exceeds 72 bytes');
    // The caller may name the id (AdminUserParams.Id, read by gofrs/uuid's FromString), kept in its canonical form; the
    // users table's primary key refuses one already taken, which the handler answers as a failed transaction (500).
    let id: string | undefined;
    if (typeof body.id === 'string' && body.id) {
      id = canonicalUuid(body.id);
      if (!id) return authError(c, 400, 'validation_failed', 'ID must conform to the uuid v4 format');
      if (id === NIL_UUID) return authError(c, 400, 'validation_failed', 'ID cannot be a nil uuid');
      if (userById(id)) return authError(c, 500, 'unexpected_failure', 'Database error creating new user');
    }
    const metadata = body.user_metadata && typeof body.user_metadata === 'object' ? (body.user_metadata as Record<string, unknown>) : {};
    const user = createUser(email, password, metadata, id);
    if (body.app_metadata && typeof body.app_metadata === 'object') user.app_metadata = { ...body.app_metadata };
    if (body.email_confirm === true) confirm(user);
    return c.json(userJson(user));
  });

  // Listed newest first (created_at descending, adminUsers' default sort in internal/api/admin.go), page
  // by page (paginate and addPaginationHeaders, internal/api/pagination.go): Link and X-Total-Count say
  // where the next and last pages are and how many users match; supabase-js's admin.listUsers reads both.
  // A filter keeps the users whose e-mail is LIKE '%' || filter || '%', or whose user_metadata.full_name is
  // ILIKE it (FindUsersInAudience, internal/models/user.go): % and _ are wildcards there, \ escapes them.
  auth.get('/admin/users', (c) => {
    const denied = requireAdmin(c);
    if (denied) return denied;
    const paging = pagingOf(c.req.query('page'), c.req.query('per_page'));
    if ('problem' in paging) return authError(c, 400, 'validation_failed', `Bad Pagination Parameters: ${paging.problem}`);
    // addPaginationHeaders divides by the page size as asked: GoTrue panics on 0 and its recoverer answers 500.
    if (paging.perPage === 0n) return authError(c, 500, 'unexpected_failure', 'Internal Server Error');
    const filter = c.req.query('filter') ?? '';
    const matches = (u: StoredUser) => {
      if (!filter) return true;
      const fullName = u.user_metadata.full_name;
      return sqlLike(`%${filter}%`, false).test(u.email) || (typeof fullName === 'string' && sqlLike(`%${filter}%`, true).test(fullName));
    };
    const all = state.users.filter(matches).sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
    // pop's paginator reads a page below 1 as the first; the headers keep the page as asked.
    const page = Number(paging.page < 1n ? 1n : paging.page);
    const perPage = Number(paging.perPage);
    c.header('link', paginationLink(new URL(c.req.url), paging.page, paging.perPage, BigInt(all.length)));
    c.header('x-total-count', String(all.length));
    return c.json({ users: all.slice((page - 1) * perPage, page * perPage).map(userJson), aud: 'authenticated' });
  });

  auth.get('/admin/users/:id', (c) => {
    const denied = requireAdmin(c);
    if (denied) return denied;
    const user = userById(c.req.param('id'));
    return user ? c.json(userJson(user)) : authError(c, 404, 'user_not_found', 'User not found');
  });

  // supabase-js sends {should_soft_delete}; a soft delete would keep the address taken, so only the hard one is emulated.
  auth.delete('/admin/users/:id', (c) => {
    const denied = requireAdmin(c);
    if (denied) return denied;
    const user = userById(c.req.param('id'));
    if (!user) return authError(c, 404, 'user_not_found', 'User not found');
    endSessions(new Set(state.sessions.filter((s) => s.user_id === user.id).map((s) => s.id)));
    state.users = state.users.filter((u) => u.id !== user.id);
    return c.json({});
  });

  auth.put('/admin/users/:id', async (c) => {
    const denied = requireAdmin(c);
    if (denied) return denied;
    const user = userById(c.req.param('id'));
    if (!user) return authError(c, 404, 'user_not_found', 'User not found');
    const body = await jsonBody(c);
    if (body.password !== undefined) {
      const weak = passwordProblem(c, body.password);
      if (weak) return weak;
      user.password_hash = hashPassword(body.password);
      passwordChanged(user);
    }
    if (body.email_confirm === true) confirm(user);
    if (body.user_metadata && typeof body.user_metadata === 'object') user.user_metadata = { ...user.user_metadata, ...body.user_metadata };
    if (body.app_metadata && typeof body.app_metadata === 'object') user.app_metadata = { ...user.app_metadata, ...body.app_metadata };
    touch(user);
    return c.json(userJson(user));
  });

  app.route('/auth/v1', auth);

  /** The body of a local control route, and the user its `email` names; 404 for none. */
  const namedUser = async (c: Context): Promise<{ body: Record<string, any>; user: StoredUser } | Response> => {
    const body = await jsonBody(c);
    const user = typeof body.email === 'string' ? userByEmail(body.email) : undefined;
    return user ? { body, user } : c.json({ error: { code: 'user_not_found', message: 'No user with this email' } }, 404);
  };

  // Local only: a recovery link and a recovery session issued `issuedSecondsAgo` ago.
  app.post('/_local/supabase/recovery', async (c) => {
    const named = await namedUser(c);
    if (named instanceof Response) return named;
    const { body, user } = named;
    const ago = Number.isInteger(body.issuedSecondsAgo) && body.issuedSecondsAgo >= 0 ? (body.issuedSecondsAgo as number) : 0;
    const issuedAt = nowSeconds() - ago;
    const { link } = startEmailToken(user, 'recovery', redirectTarget(c, body.redirectTo), issuedAt);
    const session = issueSession(user, EMAIL_LINK_METHOD, issuedAt);
    return c.json({ action_link: link, access_token: session.access_token, refresh_token: session.refresh_token, expires_at: session.expires_at });
  });

  // Local only: the user as if it had enrolled and verified a second factor (TOTP) in an earlier AAL2 session.
  app.post('/_local/supabase/mfa', async (c) => {
    const named = await namedUser(c);
    if (named instanceof Response) return named;
    const { user } = named;
    user.mfa_verified = true;
    return c.json({ email: user.email, mfa_verified: true });
  });

  // Local only: the user as if `seconds` had passed since it was made and mailed.
  app.post('/_local/supabase/backdate', async (c) => {
    const named = await namedUser(c);
    if (named instanceof Response) return named;
    const { body, user } = named;
    const seconds = Number.isInteger(body.seconds) && body.seconds >= 0 ? (body.seconds as number) : 0;
    const earlier = <T extends string | null>(at: T): T => (at === null ? at : (iso(Math.floor(Date.parse(at) / 1000) - seconds) as T));
    user.created_at = earlier(user.created_at);
    user.updated_at = earlier(user.updated_at);
    user.confirmation_sent_at = earlier(user.confirmation_sent_at);
    user.recovery_sent_at = earlier(user.recovery_sent_at);
    return c.json({ created_at: user.created_at, confirmation_sent_at: user.confirmation_sent_at, recovery_sent_at: user.recovery_sent_at });
  });

  return {
    vendor: 'supabase',
    prefixes: ['/auth/v1'],
    app,
    records: {
      'auth-emails': () => [...state.emails].reverse(),
      'auth-users': () => state.users.map(({ password_hash: _hash, ...user }) => user),
    },
    failure: (c) => authError(c, 500, 'unexpected_failure', 'Unexpected failure, please check server logs for more information'),
    throttle: (c, seconds) =>
      authError(c, 429, 'over_request_rate_limit', 'Request rate limit reached', {}, { 'retry-after': String(seconds) }),
    reset: () => (state = emptyState()),
    differences: SUPABASE_DIFFERENCES,
    dump: () => state,
    load: (saved) => (state = { ...emptyState(), ...(saved as Partial<State>) }),
  };
}

/** The emulator with other project settings (Site URL, allow list, authorized addresses), e.g. for tests. */
export function supabaseVendorWith(settings: Omit<SupabaseEmulatorOptions, 'hostUrl'>): LocalVendor {
  return {
    // The project's URL configuration follows the stack's front ends, as a deployment's does (docs/deploying.md).
    create: (ctx) =>
      supabaseEmulator({
        ...(ctx.dashboardUrl ? { siteUrl: ctx.dashboardUrl } : {}),
        ...(ctx.portalUrl ? { redirectAllowList: [`${ctx.portalUrl}/**`] } : {}),
        ...settings,
        hostUrl: ctx.hostUrl,
      }),
    env: (ctx) => ({
      SUPABASE_URL: ctx.hostUrl,
      SUPABASE_ANON_KEY,
      SUPABASE_SERVICE_ROLE_KEY,
    }),
  };
}

export const supabaseVendor: LocalVendor = supabaseVendorWith({});
