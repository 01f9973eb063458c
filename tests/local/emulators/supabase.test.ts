// The GoTrue emulator over raw HTTP: the wire details supabase-js relies on
// (error shapes per API version, x-sb-error-code, the gateway's key check,
// admin-only endpoints, link expiry), what supabase/auth's signup.go,
// verify.go, admin.go and request.go say the server does, and that its users
// survive a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorHost, type EmulatorHost } from '../../../local/emulators/host.ts';
import { SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY, redirectAllowed, signJwt, supabaseVendorWith } from '../../../local/emulators/supabase.ts';

let host: EmulatorHost;
const dir = mkdtempSync(join(tmpdir(), 'gotrue-'));
const stateFile = join(dir, 'state.json');

async function startHost() {
  host = await startEmulatorHost({ port: 0, stateFile });
  host.register(
    supabaseVendorWith({ siteUrl: SITE_URL, redirectAllowList: ['http://portal.test/**'], authorizedAddresses: undefined }).create({
      hostUrl: host.url,
      apiUrl: 'http://127.0.0.1:9',
    }),
  );
}
beforeAll(startHost);
afterAll(async () => {
  await host?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const SITE_URL = 'http://dashboard.test';
const V2024 = { 'x-supabase-api-version': '2024-01-01' };
const email = () => `${crypto.randomUUID()}@example.com`;

async function call(method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; key?: string | null } = {}) {
  const headers: Record<string, string> = { ...V2024, ...init.headers };
  if (init.key !== null) headers.apikey = init.key ?? SUPABASE_ANON_KEY;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${host.url}/auth/v1${path}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const records = async (name: string) => (await fetch(`${host.url}/_local/${name}`)).json() as Promise<any[]>;
const backdate = (address: string, seconds: number) =>
  fetch(`${host.url}/_local/supabase/backdate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: address, seconds }) });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
const asAdmin = { key: SUPABASE_SERVICE_ROLE_KEY, headers: { authorization: `Bearer ${SUPABASE_SERVICE_ROLE_KEY}` } };

async function confirmedUser(password = 'Secret123') {
  const address = email();
  const signup = await call('POST', '/signup', { body: { email: address, password } });
  await call('PUT', `/admin/users/${signup.body.id}`, {
    body: { email_confirm: true },
    key: SUPABASE_SERVICE_ROLE_KEY,
    headers: { authorization: `Bearer ${SUPABASE_SERVICE_ROLE_KEY}` },
  });
  const login = await call('POST', '/token?grant_type=password', { body: { email: address, password } });
  return { email: address, id: signup.body.id as string, accessToken: login.body.access_token as string };
}

describe('the GoTrue emulator', () => {
  it('answers errors as {code, message} with the 2024-01-01 header, echoing it, and as {code, error_code, msg} without', async () => {
    const versioned = await call('POST', '/token?grant_type=password', { body: { email: email(), password: 'x' } });
    expect(versioned.status).toBe(400);
    expect(versioned.body).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
    expect(versioned.headers.get('x-sb-error-code')).toBe('invalid_credentials');
    expect(versioned.headers.get('x-supabase-api-version')).toBe('2024-01-01');

    const legacy = await call('POST', '/token?grant_type=password', { body: { email: email(), password: 'x' }, headers: { 'x-supabase-api-version': '' } });
    expect(legacy.body).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    expect(legacy.headers.get('x-sb-error-code')).toBe('invalid_credentials');
    expect(legacy.headers.get('x-supabase-api-version')).toBeNull();
  });

  it('refuses calls without a project key, or with a wrong one, at the gateway', async () => {
    expect((await call('GET', '/health', { key: null })).status).toBe(401);
    const wrong = await call('GET', '/health', { key: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('Invalid API key');
    expect((await call('GET', '/health')).status).toBe(200);
  });

  it('signs up with confirmation required: a bare user with one identity, and no session', async () => {
    const res = await call('POST', '/signup', { body: { email: email(), password: 'Secret123', data: { companyName: 'Acme' } } });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('access_token');
    expect(res.body.identities).toHaveLength(1);
    expect(res.body.user_metadata).toEqual({ companyName: 'Acme' });
    expect(res.body.email_confirmed_at).toBeUndefined();
  });

  it('answers a confirmed address with an obfuscated user: a fresh id and no identities', async () => {
    const user = await confirmedUser();
    const again = await call('POST', '/signup', { body: { email: user.email, password: 'Other1234' } });
    expect(again.status).toBe(200);
    expect(again.body.id).not.toBe(user.id);
    expect(again.body.identities).toEqual([]);
    expect(again.body.email_confirmed_at).toBeUndefined();
  });

  it('re-sends an unconfirmed address its confirmation at most once a minute, answering the real user and keeping its password and metadata', async () => {
    const address = email();
    const first = await call('POST', '/signup', { body: { email: address, password: 'Secret123', data: { name: 'First' } } });
    const second = await call('POST', '/signup', { body: { email: address, password: 'Secret123' } });
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('over_email_send_rate_limit');
    expect(second.body.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
    expect(first.body.identities).toHaveLength(1);

    expect((await backdate(address, 61)).status).toBe(200);
    const third = await call('POST', '/signup', { body: { email: address, password: 'Other1234', data: { name: 'Third' } } });
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ id: first.body.id, user_metadata: { name: 'First' } });
    expect(third.body.identities).toEqual([expect.objectContaining({ id: first.body.id, user_id: first.body.id })]);
    expect(third.body.email_confirmed_at).toBeUndefined();
    expect(Date.parse(third.body.confirmation_sent_at) - Date.parse(third.body.created_at)).toBeGreaterThanOrEqual(60_000);
    const confirmations = (await records('auth-emails')).filter((m: any) => m.to === address && m.kind === 'signup');
    expect(confirmations).toHaveLength(2);
    expect((await records('auth-users')).filter((u: any) => u.email === address)).toEqual([expect.objectContaining({ id: first.body.id })]);
    // The password is the first signup's.
    await call('PUT', `/admin/users/${first.body.id}`, { body: { email_confirm: true }, ...asAdmin });
    expect((await call('POST', '/token?grant_type=password', { body: { email: address, password: 'Secret123' } })).status).toBe(200);
    expect((await call('POST', '/token?grant_type=password', { body: { email: address, password: 'Other1234' } })).status).toBe(400);
  });

  it('creates users through the admin API without e-mailing them, and answers email_exists for any taken address', async () => {
    const address = email();
    const created = await call('POST', '/admin/users', { body: { email: address, password: 'Secret123', user_metadata: { name: 'Ada' } }, ...asAdmin });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ email: address, user_metadata: { name: 'Ada' }, identities: [expect.objectContaining({ user_id: created.body.id })] });
    expect(created.body.email_confirmed_at).toBeUndefined();
    expect((await records('auth-emails')).filter((m: any) => m.to === address)).toEqual([]);
    expect(await call('POST', '/token?grant_type=password', { body: { email: address, password: 'Secret123' } })).toMatchObject({ body: { code: 'email_not_confirmed' } });

    const confirmed = await confirmedUser();
    for (const taken of [address, confirmed.email]) {
      expect(await call('POST', '/admin/users', { body: { email: taken.toUpperCase(), password: 'Other1234' }, ...asAdmin })).toMatchObject({
        status: 422,
        body: { code: 'email_exists', message: 'A user with this email address has already been registered' },
      });
    }
    expect(await call('POST', '/admin/users', { body: { email: email(), password: 'Secret123' } })).toMatchObject({ status: 401 });
    expect(await call('POST', '/admin/users', { body: { email: email(), password: `${'x'.repeat(73)}` }, ...asAdmin })).toMatchObject({
      status: 400,
      body: { code: 'validation_failed' },
    });
  });

  it("keeps the session's amr in a refreshed token, with the time the session began, and renews only iat (tokens/service.go, GenerateAccessToken)", async () => {
    const address = email();
    await call('POST', '/admin/users', { body: { email: address, password: 'Secret123', email_confirm: true }, ...asAdmin });
    const minted = await fetch(`${host.url}/_local/supabase/recovery`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: address, issuedSecondsAgo: 600 }),
    });
    const recovery = (await minted.json()) as { access_token: string; refresh_token: string };
    const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const before = claimsOf(recovery.access_token);
    const refreshed = await call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: recovery.refresh_token } });
    expect(refreshed.status).toBe(200);
    const after = claimsOf(refreshed.body.access_token);
    expect(after.amr).toEqual(before.amr);
    expect(after.amr).toEqual([{ method: 'otp', timestamp: before.iat }]);
    expect(after.iat).toBeGreaterThanOrEqual(before.iat + 600);
    expect(after.session_id).toBe(before.session_id);
  });

  it("takes the caller's own id for a new user, as admin.go's adminUserCreate does (params.Id)", async () => {
    const id = crypto.randomUUID();
    const created = await call('POST', '/admin/users', { body: { id: id.toUpperCase().replaceAll('-', ''), email: email(), password: 'Secret123' }, ...asAdmin });
    expect(created).toMatchObject({ status: 200, body: { id, identities: [expect.objectContaining({ user_id: id })] } });
    expect(await call('GET', `/admin/users/${id}`, asAdmin)).toMatchObject({ status: 200, body: { id } });
    // The users table's primary key: the transaction fails, and the handler answers 500.
    expect(await call('POST', '/admin/users', { body: { id, email: email(), password: 'Secret123' }, ...asAdmin })).toMatchObject({
      status: 500,
      body: { code: 'unexpected_failure', message: 'Database error creating new user' },
    });
    for (const [bad, message] of [
      ['not-a-uuid', 'ID must conform to the uuid v4 format'],
      ['00000000-0000-0000-0000-000000000000', 'ID cannot be a nil uuid'],
    ]) {
      expect(await call('POST', '/admin/users', { body: { id: bad, email: email(), password: 'Secret123' }, ...asAdmin })).toMatchObject({
        status: 400,
        body: { code: 'validation_failed', message },
      });
    }
  });

  it('refuses a wrong password and an unknown address alike, and an unconfirmed one as such', async () => {
    const user = await confirmedUser();
    const wrong = await call('POST', '/token?grant_type=password', { body: { email: user.email, password: 'Wrong1234' } });
    const unknown = await call('POST', '/token?grant_type=password', { body: { email: email(), password: 'Wrong1234' } });
    expect(wrong).toMatchObject({ status: 400, body: { code: 'invalid_credentials' } });
    expect(unknown.body).toEqual(wrong.body);
    const address = email();
    await call('POST', '/signup', { body: { email: address, password: 'Secret123' } });
    const unconfirmed = await call('POST', '/token?grant_type=password', { body: { email: address, password: 'Secret123' } });
    expect(unconfirmed).toMatchObject({ status: 400, body: { code: 'email_not_confirmed' } });
  });

  it('issues HS256 JWTs with sub, email, session_id, exp, role and aal', async () => {
    const user = await confirmedUser();
    const [head, payload] = user.accessToken.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')));
    expect(head).toMatchObject({ alg: 'HS256' });
    expect(payload).toMatchObject({ sub: user.id, email: user.email, role: 'authenticated', aal: 'aal1', session_id: expect.any(String) });
    expect(payload.exp - payload.iat).toBe(3600);
    expect(payload.amr).toEqual([{ method: 'password', timestamp: payload.iat }]);
  });

  it("says amr 'otp' for every session an e-mailed link opens, recovery and confirmation alike", async () => {
    const user = await confirmedUser();
    const generated = await call('POST', '/admin/generate_link', { body: { type: 'recovery', email: user.email }, ...asAdmin });
    const landing = new URL((await fetch(generated.body.action_link, { redirect: 'manual' })).headers.get('location')!);
    const recovery = claimsOf(new URLSearchParams(landing.hash.slice(1)).get('access_token')!);
    expect(recovery.amr).toEqual([{ method: 'otp', timestamp: recovery.iat }]);

    const address = email();
    const link = await call('POST', '/admin/generate_link', { body: { type: 'signup', email: address, password: 'Secret123' }, ...asAdmin });
    const verified = await call('POST', '/verify', { body: { type: 'signup', token_hash: link.body.hashed_token } });
    expect(claimsOf(verified.body.access_token).amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);
  });

  it("ends the user's other sessions and spends the links still out on a new password; through the admin API, every session (user.go, UpdatePassword)", async () => {
    const user = await confirmedUser();
    const login = async (password: string) => (await call('POST', '/token?grant_type=password', { body: { email: user.email, password } })).body.access_token as string;
    const asUser = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const other = await login('Secret123');
    const pending = await call('POST', '/admin/generate_link', { body: { type: 'recovery', email: user.email }, ...asAdmin });

    expect((await call('PUT', '/user', { body: { password: 'Changed123' }, ...asUser(user.accessToken) })).status).toBe(200);
    expect((await call('GET', '/user', asUser(user.accessToken))).status).toBe(200);
    expect(await call('GET', '/user', asUser(other))).toMatchObject({ status: 403, body: { code: 'session_not_found' } });
    const landing = new URL((await fetch(pending.body.action_link, { redirect: 'manual' })).headers.get('location')!);
    expect(new URLSearchParams(landing.hash.slice(1)).get('error_code')).toBe('otp_expired');

    const again = await login('Changed123');
    expect((await call('PUT', `/admin/users/${user.id}`, { body: { password: 'ByAdmin123' }, ...asAdmin })).status).toBe(200);
    for (const token of [user.accessToken, again]) expect(await call('GET', '/user', asUser(token))).toMatchObject({ status: 403, body: { code: 'session_not_found' } });
  });

  it('confirms as User.Confirm does: stamped anew, email_verified in user_metadata, and the links still out spent (models/user.go)', async () => {
    const address = email();
    const created = await call('POST', '/admin/users', { body: { email: address, password: 'Secret123', user_metadata: { name: 'Ada' } }, ...asAdmin });
    const pending = await call('POST', '/admin/generate_link', { body: { type: 'recovery', email: address }, ...asAdmin });
    const confirmed = await call('PUT', `/admin/users/${created.body.id}`, { body: { email_confirm: true }, ...asAdmin });
    expect(confirmed.body).toMatchObject({ email_confirmed_at: expect.any(String), user_metadata: { name: 'Ada', email_verified: true } });
    const landing = new URL((await fetch(pending.body.action_link, { redirect: 'manual' })).headers.get('location')!);
    expect(new URLSearchParams(landing.hash.slice(1)).get('error_code')).toBe('otp_expired');
  });

  it("lists users newest first, as adminUsers' default sort (created_at descending, admin.go)", async () => {
    const ours = [email(), email(), email()];
    for (const [i, address] of ours.entries()) {
      await call('POST', '/admin/users', { body: { email: address, password: 'Secret123' }, ...asAdmin });
      await backdate(address, 100 - i * 10);
    }
    const listed = await call('GET', '/admin/users?page=1&per_page=1000', asAdmin);
    const order = (listed.body.users as { email: string }[]).map((u) => u.email).filter((e) => ours.includes(e));
    expect(order).toEqual([...ours].reverse());
  });

  it("filters the user list as FindUsersInAudience does: e-mail LIKE '%filter%' (_ and % wildcards, \\ escapes them) or full_name ILIKE it (models/user.go)", async () => {
    const t = crypto.randomUUID().slice(0, 8);
    const [plain, longer, wild] = [`ab${t}@example.com`, `xab${t}@example.com`, `a_${t}@example.com`];
    for (const address of [plain, longer, wild]) await call('POST', '/admin/users', { body: { email: address, password: 'Secret123' }, ...asAdmin });
    await call('POST', '/admin/users', { body: { email: email(), password: 'Secret123', user_metadata: { full_name: `AB${t}@EXAMPLE.COM` } }, ...asAdmin });
    const listed = async (filter: string) =>
      ((await call('GET', `/admin/users?page=1&per_page=50&filter=${encodeURIComponent(filter)}`, asAdmin)).body.users as { email: string; user_metadata: { full_name?: string } }[])
        .map((u) => u.user_metadata.full_name ?? u.email)
        .sort();
    expect(await listed(plain)).toEqual([`AB${t}@EXAMPLE.COM`, plain, longer].sort());
    expect(await listed(`a_${t}@`)).toEqual([`AB${t}@EXAMPLE.COM`, plain, longer, wild].sort());
    expect(await listed(`a\\_${t}@`)).toEqual([wild]);
  });

  it('pages the user list as paginate and addPaginationHeaders do (pagination.go): Link with next and last, X-Total-Count, 400 for a page that is no unsigned number', async () => {
    const t = crypto.randomUUID().slice(0, 8);
    for (let i = 0; i < 3; i++) await call('POST', '/admin/users', { body: { email: `page-${i}-${t}@example.com`, password: 'Secret123' }, ...asAdmin });
    const page = (query: string) => call('GET', `/admin/users?${query}`, asAdmin);
    const first = await page(`per_page=2&filter=${t}`);
    expect(first.status).toBe(200);
    expect(first.body.users).toHaveLength(2);
    expect(first.headers.get('x-total-count')).toBe('3');
    // The path as GoTrue sees it, behind the gateway; the query re-encoded in key order, page set.
    expect(first.headers.get('link')).toBe(`</admin/users?filter=${t}&page=2&per_page=2>; rel="next", </admin/users?filter=${t}&page=2&per_page=2>; rel="last"`);
    const second = await page(`page=2&per_page=2&filter=${t}`);
    expect(second.body.users).toHaveLength(1);
    expect(second.headers.get('link')).toBe(`</admin/users?filter=${t}&page=2&per_page=2>; rel="last"`);
    expect((await page(`page=&per_page=&filter=${t}`)).headers.get('link')).toBe(`</admin/users?filter=${t}&page=1&per_page=>; rel="last"`);
    expect((await page(`page=1&per_page=2&filter=${encodeURIComponent(`${t} *`)}`)).headers.get('link')).toBe(`</admin/users?filter=${t}+%2A&page=0&per_page=2>; rel="last"`);

    for (const [query, value] of [['page=-1', '-1'], ['page=1.5', '1.5'], ['per_page=%2B5', '+5'], ['per_page=ten', 'ten']] as const) {
      expect(await page(query), query).toMatchObject({
        status: 400,
        body: { code: 'validation_failed', message: `Bad Pagination Parameters: strconv.ParseUint: parsing "${value}": invalid syntax` },
      });
    }
    expect((await page('page=18446744073709551616')).body.message).toBe('Bad Pagination Parameters: strconv.ParseUint: parsing "18446744073709551616": value out of range');
    // A page below 1 lists the first, as pop's paginator does; a page size of 0 makes GoTrue divide by zero.
    expect((await page(`page=0&per_page=2&filter=${t}`)).body.users).toHaveLength(2);
    expect((await page('per_page=0')).status).toBe(500);
  });

  it('verifies as VerifyParams.Validate and verifyTokenHash say (verify.go): a token or a token hash, a hash only with its type, a type a link carries', async () => {
    const address = email();
    await call('POST', '/signup', { body: { email: address, password: 'Secret123' } });
    const [mail] = (await records('auth-emails')).filter((m: any) => m.to === address);
    const hash = new URL(mail.link).searchParams.get('token')!;
    const refused = (body: unknown) => call('POST', '/verify', { body });
    expect(await refused({ type: 'signup' })).toMatchObject({ status: 400, body: { message: 'Verify requires either a token or a token hash' } });
    expect(await refused({ type: 'signup', token: mail.otp, token_hash: hash, email: address })).toMatchObject({ status: 400, body: { message: 'Verify requires either a token or a token hash' } });
    expect(await refused({ type: 'signup', token_hash: hash, email: address })).toMatchObject({ status: 400, body: { message: 'Only the token_hash and type should be provided' } });
    expect(await refused({ type: 'sms', token_hash: hash })).toMatchObject({ status: 400, body: { message: 'Invalid email verification type' } });
    expect(await refused({ type: 'signup', token_hash: hash, gotrue_meta_security: { captcha_token: 'x', other: 1 } })).toMatchObject({
      status: 400,
      body: { message: 'Undeclared field gotrue_meta_security.other' },
    });
    expect(await refused({ type: 'signup', token: mail.otp, email: 'not an address' })).toMatchObject({ status: 422, body: { message: 'Invalid email format' } });
    expect(await refused({ type: 'recovery', token: mail.otp, email: address })).toMatchObject({ status: 403, body: { code: 'otp_expired', message: 'Token has expired or is invalid' } });
    // The code from the e-mail, with its address: confirmed, and a session, once.
    const verified = await call('POST', '/verify', { body: { type: 'email', token: mail.otp, email: address.toUpperCase(), gotrue_meta_security: {} } });
    expect(verified).toMatchObject({ status: 200, body: { user: { email: address, email_confirmed_at: expect.any(String) } } });
    expect(await refused({ type: 'signup', token_hash: hash })).toMatchObject({ status: 403, body: { code: 'otp_expired', message: 'Email link is invalid or has expired' } });
  });

  it('confirms an unconfirmed address through a recovery link, as recoverVerify does (verify.go), and keeps a confirmed one as it was', async () => {
    const address = email();
    await call('POST', '/admin/users', { body: { email: address, password: 'Secret123' }, ...asAdmin });
    const link = await call('POST', '/admin/generate_link', { body: { type: 'recovery', email: address }, ...asAdmin });
    expect(link.body.email_confirmed_at).toBeUndefined();
    const landing = new URL((await fetch(link.body.action_link, { redirect: 'manual' })).headers.get('location')!);
    expect(new URLSearchParams(landing.hash.slice(1)).get('type')).toBe('recovery');
    const user = (await records('auth-users')).find((u) => u.email === address);
    expect(user.email_confirmed_at).toEqual(expect.any(String));
  });

  it('honours redirect_to only for the Site URL or the allow list, and lands anything else silently on the Site URL', async () => {
    const user = await confirmedUser();
    const landingOf = async (redirectTo: string) => {
      const generated = await call('POST', `/admin/generate_link?redirect_to=${encodeURIComponent(redirectTo)}`, { body: { type: 'recovery', email: user.email }, ...asAdmin });
      expect(generated.status).toBe(200);
      const location = new URL((await fetch(generated.body.action_link, { redirect: 'manual' })).headers.get('location')!);
      return `${location.origin}${location.pathname}`;
    };
    expect(await landingOf('http://portal.test/reset-password')).toBe('http://portal.test/reset-password');
    expect(await landingOf('http://dashboard.test/welcome')).toBe('http://dashboard.test/welcome');
    for (const outside of ['https://evil.example/steal', 'http://portal.test.evil.example/reset', 'https://portal.test/reset-password']) {
      expect(await landingOf(outside), outside).toBe(`${SITE_URL}/`);
    }
    // The Referer stands in for a missing redirect_to, on the same terms.
    const address = email();
    await call('POST', '/signup', { body: { email: address, password: 'Secret123' }, headers: { referer: 'http://portal.test/signup' } });
    const [mail] = (await records('auth-emails')).filter((m: any) => m.to === address);
    expect(new URL(mail.link).searchParams.get('redirect_to')).toBe('http://portal.test/signup');
  });

  it('matches allow-list globs as GoTrue does: * within a label or segment, ** across them', () => {
    const site = 'https://app.example.com';
    const list = ['https://*.preview.example.com/**', 'http://localhost:3001/**', 'myapp://callback'];
    expect(redirectAllowed('https://app.example.com/anything', site, [])).toBe(true);
    expect(redirectAllowed('https://pr-1.preview.example.com/reset', site, list)).toBe(true);
    expect(redirectAllowed('https://a.b.preview.example.com/reset', site, list)).toBe(false);
    expect(redirectAllowed('myapp://callback', site, list)).toBe(true);
    expect(redirectAllowed('http://127.0.0.1:9999/x', site, [])).toBe(true);
    expect(redirectAllowed('http://10.0.0.1/x', site, [])).toBe(false);
    expect(redirectAllowed('http://2130706433/x', site, list)).toBe(false);
    expect(redirectAllowed('http://localhost:3001/reset#access_token=x', site, list)).toBe(true);
    expect(redirectAllowed('not a url', site, list)).toBe(false);
  });

  it('refuses, creating nothing, to e-mail an address outside the authorized ones (default SMTP)', async () => {
    const restricted = await startEmulatorHost({ port: 0 });
    try {
      restricted.register(supabaseVendorWith({ authorizedAddresses: ['team@agency.test'] }).create({ hostUrl: restricted.url, apiUrl: 'http://127.0.0.1:9' }));
      const post = (path: string, body: unknown) =>
        fetch(`${restricted.url}/auth/v1${path}`, { method: 'POST', headers: { ...V2024, apikey: SUPABASE_ANON_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const refused = await post('/signup', { email: 'someone@client.test', password: 'Secret123' });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ code: 'email_address_not_authorized', message: 'Email address "someone@client.test" cannot be used as it is not authorized' });
      expect(await (await fetch(`${restricted.url}/_local/auth-users`)).json()).toEqual([]);
      expect((await post('/signup', { email: 'Team+x@agency.test', password: 'Secret123' })).status).toBe(200);
    } finally {
      await restricted.stop();
    }
  });

  it('deletes a user through the admin interface: its sessions end and its address is free again', async () => {
    const user = await confirmedUser();
    expect(await call('DELETE', `/admin/users/${user.id}`, { body: { should_soft_delete: false } })).toMatchObject({ status: 401 });
    expect(await call('DELETE', `/admin/users/${user.id}`, { body: { should_soft_delete: false }, headers: { authorization: `Bearer ${user.accessToken}` } })).toMatchObject({
      status: 403,
      body: { code: 'not_admin' },
    });
    expect((await call('DELETE', `/admin/users/${user.id}`, { body: { should_soft_delete: false }, ...asAdmin })).status).toBe(200);
    expect(await call('GET', '/user', { headers: { authorization: `Bearer ${user.accessToken}` } })).toMatchObject({ status: 403 });
    expect(await call('DELETE', `/admin/users/${user.id}`, asAdmin)).toMatchObject({ status: 404, body: { code: 'user_not_found' } });
    const again = await call('POST', '/signup', { body: { email: user.email, password: 'Secret123' } });
    expect(again.body.identities).toHaveLength(1);
    expect(again.body.id).not.toBe(user.id);
  });

  it('refuses a token after logout, a forged one, and an expired one', async () => {
    const user = await confirmedUser();
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    expect((await call('GET', '/user', { headers: auth(user.accessToken) })).status).toBe(200);

    const forged = signJwt({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 60, role: 'authenticated' }, 'not-the-secret');
    expect(await call('GET', '/user', { headers: auth(forged) })).toMatchObject({ status: 403, body: { code: 'bad_jwt' } });

    expect((await call('POST', '/logout?scope=global', { headers: auth(user.accessToken) })).status).toBe(204);
    expect(await call('GET', '/user', { headers: auth(user.accessToken) })).toMatchObject({ status: 403, body: { code: 'session_not_found' } });
    expect(await call('GET', '/user')).toMatchObject({ status: 401, body: { code: 'no_authorization' } });
  });

  it('keeps admin endpoints to the service-role key', async () => {
    const user = await confirmedUser();
    const asAnon = await call('PUT', `/admin/users/${user.id}`, { body: { email_confirm: true }, headers: { authorization: `Bearer ${SUPABASE_ANON_KEY}` } });
    expect(asAnon).toMatchObject({ status: 403, body: { code: 'not_admin' } });
    const asUser = await call('POST', '/admin/generate_link', { body: { type: 'recovery', email: user.email }, headers: { authorization: `Bearer ${user.accessToken}` } });
    expect(asUser).toMatchObject({ status: 403, body: { code: 'not_admin' } });
    const unknown = await call('POST', '/admin/generate_link', {
      body: { type: 'recovery', email: email() },
      key: SUPABASE_SERVICE_ROLE_KEY,
      headers: { authorization: `Bearer ${SUPABASE_SERVICE_ROLE_KEY}` },
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'user_not_found' } });
  });

  it('opens a recovery session from a link once, then refuses the link', async () => {
    const user = await confirmedUser();
    const generated = await call('POST', '/admin/generate_link?redirect_to=http%3A%2F%2Fportal.test%2Freset-password', {
      body: { type: 'recovery', email: user.email },
      key: SUPABASE_SERVICE_ROLE_KEY,
      headers: { authorization: `Bearer ${SUPABASE_SERVICE_ROLE_KEY}` },
    });
    expect(generated.status).toBe(200);
    expect(generated.body).toMatchObject({ verification_type: 'recovery', redirect_to: 'http://portal.test/reset-password', id: user.id });

    const first = await fetch(generated.body.action_link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const landing = new URL(first.headers.get('location')!);
    expect(`${landing.origin}${landing.pathname}`).toBe('http://portal.test/reset-password');
    const hash = new URLSearchParams(landing.hash.slice(1));
    expect(hash.get('type')).toBe('recovery');
    expect(hash.get('expires_in')).toBe('3600');
    expect(hash.get('access_token')).toBeTruthy();

    const second = await fetch(generated.body.action_link, { redirect: 'manual' });
    const refused = new URLSearchParams(new URL(second.headers.get('location')!).hash.slice(1));
    expect(refused.get('error_code')).toBe('otp_expired');
    expect(refused.get('access_token')).toBeNull();
  });

  it('refuses a recovery link issued more than an hour ago, and lets a test mint one', async () => {
    const user = await confirmedUser();
    const minted = await fetch(`${host.url}/_local/supabase/recovery`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, issuedSecondsAgo: 3601, redirectTo: 'http://portal.test/reset-password' }),
    }).then((r) => r.json() as Promise<{ action_link: string; access_token: string }>);
    const res = await fetch(minted.action_link, { redirect: 'manual' });
    const hash = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1));
    expect(hash.get('error_code')).toBe('otp_expired');
    expect(await call('GET', '/user', { headers: { authorization: `Bearer ${minted.access_token}` } })).toMatchObject({
      status: 403,
      body: { code: 'bad_jwt', message: expect.stringContaining('expired') },
    });
  });

  it('refuses a new password below AAL2 to a user with a verified factor (401 insufficient_aal, after the strength check), where the admin API checks no factor', async () => {
    // supabase/auth internal/api/user.go, UserUpdate: password strength (validateUserUpdateParams), then
    // HasMFAEnabled() && !session.IsAAL2() → 401 insufficient_aal; admin.go's user update has no such check.
    const user = await confirmedUser();
    expect((await fetch(`${host.url}/_local/supabase/mfa`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email }) })).status).toBe(200);
    const bearer = { authorization: `Bearer ${user.accessToken}` };
    expect(await call('PUT', '/user', { body: { password: 'abc' }, headers: bearer })).toMatchObject({ status: 422, body: { code: 'weak_password' } });
    expect(await call('PUT', '/user', { body: { password: 'NewSecret456' }, headers: bearer })).toMatchObject({ status: 401, body: { code: 'insufficient_aal' } });
    expect(await call('PUT', '/user', { body: { data: { name: 'Ada' } }, headers: bearer })).toMatchObject({ status: 200 });
    expect(await call('PUT', `/admin/users/${user.id}`, { body: { password: 'ByAdmin789' }, ...asAdmin })).toMatchObject({ status: 200 });
    expect(await call('POST', '/token?grant_type=password', { body: { email: user.email, password: 'ByAdmin789' } })).toMatchObject({ status: 200 });
  });

  it('compares passwords on their first 72 bytes, as bcrypt does', async () => {
    const long = `Aa1${'x'.repeat(69)}`; // exactly 72 bytes
    const user = await confirmedUser(`${long}-anything-after-byte-72`);
    const login = await call('POST', '/token?grant_type=password', { body: { email: user.email, password: long } });
    expect(login.status).toBe(200);
  });

  it('records the e-mails the provider sends itself, and answers an unknown address the same', async () => {
    const user = await confirmedUser();
    expect(await call('POST', '/recover', { body: { email: user.email } })).toMatchObject({ status: 200, body: {} });
    expect(await call('POST', '/recover', { body: { email: email() } })).toMatchObject({ status: 200, body: {} });
    const mails = (await (await fetch(`${host.url}/_local/auth-emails`)).json()) as { to: string; kind: string; link: string }[];
    expect(mails[0]).toMatchObject({ to: user.email, kind: 'recovery', link: expect.stringContaining('/auth/v1/verify?token=') });
  });

  it('keeps its users across a restart', async () => {
    const user = await confirmedUser();
    await host.stop();
    await startHost();
    const login = await call('POST', '/token?grant_type=password', { body: { email: user.email, password: 'Secret123' } });
    expect(login.status).toBe(200);
  });
});
