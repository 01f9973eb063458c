// Authentication end to end over HTTP, on the local stack: the API, the GoTrue
// emulator behind supabase-js, the Resend mailbox and DynamoDB.
// Every test uses addresses of its own and calls from a client IP of its own,
// so tests running in parallel never meet in a mailbox or a rate limit.
import { describe, expect, it } from 'vitest';
import { errorCode, injectFault, recorded, stack } from '../support/http.ts';
import { bearer, client, followResetLink, logIn, mailTo, newEmail, PASSWORD, verificationToken, verifiedUser } from '../support/users.ts';

const portal = () => stack().env.PORTAL_URL!;

/** Moves back the times the emulator sent this address its e-mails, as if `seconds` had passed. */
async function backdateProviderEmails(email: string, seconds: number) {
  const res = await fetch(`${stack().urls.emulators}/_local/supabase/backdate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, seconds }),
  });
  expect(res.status).toBe(200);
}

const providerUsers = async (email: string) => (await recorded<{ id: string; email: string }[]>('auth-users')).filter((u) => u.email === email);

/** A recovery link and session minted by the emulator as if issued `secondsAgo` ago. */
async function mintedRecovery(email: string, secondsAgo: number) {
  const res = await fetch(`${stack().urls.emulators}/_local/supabase/recovery`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, issuedSecondsAgo: secondsAgo, redirectTo: `${portal()}/reset-password` }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { action_link: string; access_token: string; refresh_token: string };
}

/** A new access token for the session, as supabase-js refreshes one (POST /token?grant_type=refresh_token). */
async function refreshed(refreshToken: string): Promise<string> {
  const res = await fetch(`${stack().env.SUPABASE_URL}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', apikey: stack().env.SUPABASE_ANON_KEY! },
    body: JSON.stringify({ refresh_token: refreshToken }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('signup → verification → login → me → logout', () => {
  it('runs the whole flow, and the same token is refused after logout', async () => {
    const c = client();
    const email = newEmail();

    const signup = await c.post('/api/auth/signup', { email, password: PASSWORD, metadata: { name: 'Ada', companyName: 'Lovelace Analytics' } });
    expect(signup.status).toBe(201);
    expect(signup.body).toMatchObject({ user: { email, email_confirmed: false, metadata: { companyName: 'Lovelace Analytics' } }, session: null });

    const [mail] = await mailTo(email);
    expect(mail).toMatchObject({ subject: 'Confirm your e-mail address' });
    expect(mail!.tags).toEqual([{ name: 'kind', value: 'verify-email' }]);
    const token = await verificationToken(email);
    expect(mail!.html).toContain(`${portal()}/verify?token=${token}`);

    const beforeVerification = await logIn(c, email);
    expect(beforeVerification.status).toBe(403);
    expect(errorCode(beforeVerification)).toBe('email_not_confirmed');

    const verified = await c.post('/api/verify-email', { token });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      success: true,
      email,
      redirectTo: `${portal()}/${verified.body.portalSlug}`,
      portalSlug: expect.stringMatching(/^lovelace-analytics(-[a-z0-9]+)?$/),
    });

    const login = await logIn(c, email);
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({
      session: { access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 3600 },
      user: { email, email_confirmed: true },
    });
    const accessToken: string = login.body.session.access_token;

    const me = await c.get('/api/auth/me', bearer(accessToken));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, app_metadata: { provider: 'email' }, metadata: { name: 'Ada', companyName: 'Lovelace Analytics' } });

    const logout = await c.post('/api/auth/logout', undefined, bearer(accessToken));
    expect(logout.status).toBe(200);
    expect(logout.body).toEqual({ success: true, message: 'Signed out' });

    const after = await c.get('/api/auth/me', bearer(accessToken));
    expect(after.status).toBe(401);
    expect(errorCode(after)).toBe('unauthenticated');

    const reused = await c.post('/api/verify-email', { token });
    expect(reused.status).toBe(400);
    expect(errorCode(reused)).toBe('invalid_token');
  });

  it("sends a user whose signup named no company to the portal's onboarding", async () => {
    const { verified } = await verifiedUser(client());
    expect(verified).toMatchObject({ redirectTo: `${portal()}/onboarding`, portalSlug: null });
  });
});

describe('signup errors', () => {
  it('400 for a missing or malformed e-mail, a missing password, or unknown fields', async () => {
    const c = client();
    for (const body of [{ password: PASSWORD }, { email: 'not-an-email', password: PASSWORD }, { email: newEmail() }, { email: newEmail(), password: PASSWORD, admin: true }]) {
      const res = await c.post('/api/auth/signup', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe('invalid_request');
    }
  });

  it('400 weak_password for each broken rule, including passwords bcrypt would truncate; nothing is registered', async () => {
    const c = client();
    for (const password of ['Sh0rt', 'nouppercase1', 'NOLOWERCASE1', 'NoDigitsHere', `Aa1${'é'.repeat(35)}`]) {
      const email = newEmail();
      const res = await c.post('/api/auth/signup', { email, password });
      expect(res.status, password).toBe(400);
      expect(errorCode(res)).toBe('weak_password');
      expect(res.text).not.toContain(password);
      expect(await mailTo(email)).toEqual([]);
    }
  });

  it('409 for an address that is already registered, which the provider only hints at', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const mailsBefore = (await mailTo(email)).length;
    const again = await c.post('/api/auth/signup', { email, password: 'Another123' });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe('email_already_registered');
    expect((await mailTo(email)).length).toBe(mailsBefore);
  });

  it('409 for a repeated signup of an unverified address, inside and past the resend interval, contesting the registration: the first link is void, and the mailbox chooses the password', async () => {
    const c = client();
    const email = newEmail();
    expect((await c.post('/api/auth/signup', { email, password: PASSWORD })).status).toBe(201);
    const [user] = await providerUsers(email);
    const firstToken = await verificationToken(email);

    const inside = await c.post('/api/auth/signup', { email, password: 'Another123' });
    expect(inside.status).toBe(409);
    expect(errorCode(inside)).toBe('email_already_registered');
    await backdateProviderEmails(email, 61);
    const past = await c.post('/api/auth/signup', { email, password: 'Another123' });
    expect(past.status).toBe(409);
    expect(errorCode(past)).toBe('email_already_registered');
    expect(past.text).not.toContain(user!.id);
    expect((await mailTo(email)).map((m) => m.subject)).toEqual(['Finish signing up', 'Finish signing up', 'Confirm your e-mail address']);
    expect(await providerUsers(email)).toEqual([expect.objectContaining({ id: user!.id })]);

    // The first link no longer works, and neither password logs in; the newest finish-signup link sets one.
    expect((await c.post('/api/verify-email', { token: firstToken })).status).toBe(400);
    expect((await logIn(c, email)).status).toBe(401);
    expect((await logIn(c, email, 'Another123')).status).toBe(401);
    const link = await followResetLink(email, 'Finish signing up');
    expect((await c.post('/api/auth/reset-password', { token: link.token, password: 'Chosen789' })).status).toBe(200);
    expect((await logIn(c, email, 'Chosen789')).status).toBe(200);
    // A verified address's repeat is the test above (a fourth signup of one address would meet RATE_LIMIT_PER_EMAIL).
  });

  it('deletes nobody when the e-mail of a repeated signup would fail: that failure is the answer, and the next signup sends it', async () => {
    const c = client();
    const email = newEmail();
    expect((await c.post('/api/auth/signup', { email, password: PASSWORD })).status).toBe(201);
    const [user] = await providerUsers(email);
    await injectFault({ vendor: 'resend', mode: 'fail', count: 3, match: email });
    const again = await c.post('/api/auth/signup', { email, password: 'Another123' });
    expect(await providerUsers(email)).toEqual([expect.objectContaining({ id: user!.id })]);
    expect([again.status, errorCode(again)]).toEqual([500, 'vendor_failed']);
    expect((await c.post('/api/auth/signup', { email, password: 'Another123' })).status).toBe(409);
    const link = await followResetLink(email, 'Finish signing up');
    expect((await c.post('/api/auth/reset-password', { token: link.token, password: 'Chosen789' })).status).toBe(200);
    expect((await logIn(c, email, 'Chosen789')).status).toBe(200);
  });

  it("201 and the verification e-mail when the provider's answer to the create is lost and the create is sent again", async () => {
    // As under load: Supabase made the user, its answer never came (the request timed out), and the retry
    // found the address taken. Before the fix that was the person's own signup answered 409, with no e-mail.
    const c = client();
    const email = newEmail();
    await injectFault({ vendor: 'supabase', mode: 'lose-answer', count: 1, match: email });
    const signup = await c.post('/api/auth/signup', { email, password: PASSWORD });
    expect(signup.status).toBe(201);
    expect(await providerUsers(email)).toEqual([expect.objectContaining({ id: signup.body.user.id })]);
    expect(await mailTo(email)).toHaveLength(1);
    expect((await c.post('/api/verify-email', { token: await verificationToken(email) })).status).toBe(200);
    expect((await logIn(c, email)).status).toBe(200);
  });

  it('500 when the verification e-mail cannot be sent, leaving no user behind: signing up again works', async () => {
    const c = client();
    const email = newEmail();
    await injectFault({ vendor: 'resend', mode: 'fail', count: 3, match: email });
    const failed = await c.post('/api/auth/signup', { email, password: PASSWORD });
    expect(failed.status).toBe(500);
    expect(errorCode(failed)).toBe('vendor_failed');
    expect(await providerUsers(email)).toEqual([]);

    const again = await c.post('/api/auth/signup', { email, password: PASSWORD });
    expect(again.status).toBe(201);
    expect(await mailTo(email)).toHaveLength(1);
    expect(await providerUsers(email)).toHaveLength(1);
  });
});

describe('login errors', () => {
  it('401 alike for a wrong password and an unknown address', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const wrong = await logIn(c, email, 'Wrong1234');
    const unknown = await logIn(c, newEmail(), PASSWORD);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(errorCode(wrong)).toBe('invalid_credentials');
    expect(unknown.body.error).toEqual(wrong.body.error);
  });

  it('400 for a malformed body', async () => {
    const res = await client().post('/api/auth/login', { email: 'nope' });
    expect(res.status).toBe(400);
  });
});

describe('me and logout refuse what is not a live token', () => {
  it('401 for a missing, malformed, forged or expired token', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const token: string = (await logIn(c, email)).body.session.access_token;
    const [head, body] = token.split('.');
    const expired = (await mintedRecovery(email, 3601)).access_token;
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      'not bearer': { authorization: `Basic ${token}` },
      malformed: bearer('not-a-token'),
      forged: bearer(`${head}.${body}.${'A'.repeat(43)}`),
      expired: bearer(expired),
    };
    for (const [name, headers] of Object.entries(cases)) {
      const res = await c.get('/api/auth/me', headers);
      expect(res.status, name).toBe(401);
      expect(errorCode(res)).toBe('unauthenticated');
    }
    expect((await c.get('/api/auth/me', bearer(token))).status).toBe(200);
  });

  it('logout is 401 without a token, and for a token already logged out', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const token: string = (await logIn(c, email)).body.session.access_token;
    expect((await c.post('/api/auth/logout')).status).toBe(401);
    expect((await c.post('/api/auth/logout', undefined, bearer(token))).status).toBe(200);
    const again = await c.post('/api/auth/logout', undefined, bearer(token));
    expect(again.status).toBe(401);
    expect(errorCode(again)).toBe('unauthenticated');
  });
});

describe('forgot-password → reset link → reset-password', () => {
  it('answers an existing and an unknown address with byte-identical bodies and the same status', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const nobody = newEmail();
    const known = await c.post('/api/auth/forgot-password', { email });
    const unknown = await c.post('/api/auth/forgot-password', { email: nobody });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(known.body).toEqual({ success: true, message: expect.any(String) });
    // Both got one e-mail (the same work either way): the unknown address hears it has no account, and where to sign up.
    expect((await mailTo(email)).filter((m) => m.subject === 'Reset your password')).toHaveLength(1);
    const [notice, ...more] = await mailTo(nobody);
    expect(more).toHaveLength(0);
    expect(notice!.subject).toBe('No account for this e-mail address');
    expect(notice!.text).toContain(`${stack().env.DASHBOARD_URL}/signup`);
  });

  it('e-mails a link that lands on the reset page; its token works once; the new password logs in, the old does not', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const oldSession: string = (await logIn(c, email)).body.session.access_token;
    expect((await c.post('/api/auth/forgot-password', { email })).status).toBe(200);

    const link = await followResetLink(email);
    expect(link.landing).toBe(`${portal()}/reset-password`);
    expect(link.type).toBe('recovery');
    // As current GoTrue issues it (verify.go): the session of an e-mailed link says `otp`, not `recovery`.
    expect(JSON.parse(Buffer.from(link.token!.split('.')[1]!, 'base64url').toString()).amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);

    const reset = await c.post('/api/auth/reset-password', { token: link.token, password: 'NewSecret456' });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ success: true, message: expect.any(String) });

    const reused = await c.post('/api/auth/reset-password', { token: link.token, password: 'Another789x' });
    expect(reused.status).toBe(400);
    expect(errorCode(reused)).toBe('invalid_token');
    expect(reused.text).not.toContain(link.token!);

    expect((await logIn(c, email, 'NewSecret456')).status).toBe(200);
    expect((await logIn(c, email, PASSWORD)).status).toBe(401);
    expect((await logIn(c, email, 'Another789x')).status).toBe(401);
    // Every earlier session ended with the reset.
    expect((await c.get('/api/auth/me', bearer(oldSession))).status).toBe(401);
  });

  it('takes the recovery token as a bearer token too', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    await c.post('/api/auth/forgot-password', { email });
    const { token } = await followResetLink(email);
    const reset = await c.post('/api/auth/reset-password', { password: 'NewSecret456' }, bearer(token!));
    expect(reset.status).toBe(200);
    expect((await logIn(c, email, 'NewSecret456')).status).toBe(200);
  });

  it('refuses a link older than an hour: the link itself, and a token from it', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const old = await mintedRecovery(email, 3601);
    const res = await fetch(old.action_link, { redirect: 'manual' });
    const hash = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1));
    expect(hash.get('error_code')).toBe('otp_expired');
    expect(hash.get('access_token')).toBeNull();

    const reset = await c.post('/api/auth/reset-password', { token: old.access_token, password: 'NewSecret456' });
    expect(reset.status).toBe(400);
    expect(errorCode(reset)).toBe('invalid_token');
    expect((await logIn(c, email)).status).toBe(200);

    const fresh = await mintedRecovery(email, 3500);
    expect((await c.post('/api/auth/reset-password', { token: fresh.access_token, password: 'NewSecret456' })).status).toBe(200);
  });

  it("refuses a recovery session's token refreshed after the hour: the link's hour counts from when the link opened the session", async () => {
    // The link's redirect hands the browser a refresh token too. Refreshed later, the session's token is
    // new (iat now) and still says how the session began (amr otp, with that time).
    const c = client();
    const { email } = await verifiedUser(c);
    const old = await mintedRecovery(email, 3601);
    const later = await refreshed(old.refresh_token);
    const reset = await c.post('/api/auth/reset-password', { token: later, password: 'NewSecret456' });
    expect(reset.status).toBe(400);
    expect(errorCode(reset)).toBe('invalid_token');
    expect((await logIn(c, email)).status).toBe(200);

    const recent = await mintedRecovery(email, 3000);
    expect((await c.post('/api/auth/reset-password', { token: await refreshed(recent.refresh_token), password: 'NewSecret456' })).status).toBe(200);
  });

  it("400 invalid_token for a login's access token, live as it is: only the recovery link's token resets", async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const login: string = (await logIn(c, email)).body.session.access_token;
    expect((await c.get('/api/auth/me', bearer(login))).status).toBe(200);
    for (const carrier of [{ body: { token: login, password: 'NewSecret456' } }, { body: { password: 'NewSecret456' }, headers: bearer(login) }]) {
      const res = await c.post('/api/auth/reset-password', carrier.body, carrier.headers);
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe('invalid_token');
    }
    expect((await logIn(c, email)).status).toBe(200);
    expect((await logIn(c, email, 'NewSecret456')).status).toBe(401);
    expect((await c.get('/api/auth/me', bearer(login))).status).toBe(200);
  });

  it('400 for a missing or invalid token, or a weak password, changing nothing', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    await c.post('/api/auth/forgot-password', { email });
    const { token } = await followResetLink(email);
    const cases: [unknown, string][] = [
      [{ password: 'NewSecret456' }, 'invalid_token'],
      [{ password: 'NewSecret456', token: 'garbage' }, 'invalid_token'],
      [{ password: 'weak', token }, 'weak_password'],
      [{ password: `Aa1${'x'.repeat(70)}`, token }, 'weak_password'],
      [{ token }, 'invalid_request'],
    ];
    for (const [body, code] of cases) {
      const res = await c.post('/api/auth/reset-password', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe(code);
      expect(res.text).not.toContain(token!);
    }
    expect((await logIn(c, email)).status).toBe(200);
    // From another address: this one has used up its reset-password attempts.
    expect((await client().post('/api/auth/reset-password', { token, password: 'NewSecret456' })).status).toBe(200);
  });

  it('400 invalid_token, not 500, for a recovery-shaped token whose header is no JSON: supabase-js throws on it before asking the provider', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const now = Math.floor(Date.now() / 1000);
    const payload = Buffer.from(JSON.stringify({ sub: crypto.randomUUID(), iat: now, exp: now + 3600, amr: [{ method: 'recovery', timestamp: now }] })).toString('base64url');
    const forged = `${Buffer.from('abc').toString('base64url')}.${payload}.${Buffer.from('sig').toString('base64url')}`;
    for (const carrier of [{ body: { token: forged, password: 'NewSecret456' } }, { body: { password: 'NewSecret456' }, headers: bearer(forged) }]) {
      const res = await c.post('/api/auth/reset-password', carrier.body, carrier.headers);
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe('invalid_token');
    }
    expect((await logIn(c, email)).status).toBe(200);
  });

  it("403, changing nothing, when the account has a second sign-in factor: a reset link's session may not change the password, and the admin interface does not override that", async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    const mfa = await fetch(`${stack().urls.emulators}/_local/supabase/mfa`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    expect(mfa.status).toBe(200);
    // Whoever reads the mailbox: asks for a reset, follows the link, posts its token.
    await c.post('/api/auth/forgot-password', { email });
    const { token } = await followResetLink(email);
    const res = await c.post('/api/auth/reset-password', { token, password: 'Taken0verPass' });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('password_change_refused');
    expect((await logIn(c, email, 'Taken0verPass')).status).toBe(401);
    expect((await logIn(c, email)).status).toBe(200);
  });

  it('500 when the provider can update the password neither directly nor through the admin interface', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    await c.post('/api/auth/forgot-password', { email });
    const { token } = await followResetLink(email);
    const password = `Fresh${crypto.randomUUID().slice(0, 8)}9a`;
    // Both password updates carry this password in their body: every attempt of each fails (3 + 3).
    await injectFault({ vendor: 'supabase', mode: 'fail', count: 6, match: password });
    const res = await c.post('/api/auth/reset-password', { token, password });
    expect(res.status).toBe(500);
    expect(errorCode(res)).toBe('vendor_failed');
    expect(res.text).not.toContain(token!);
    expect((await logIn(c, email)).status).toBe(200);
    expect((await client().post('/api/auth/reset-password', { token, password })).status).toBe(200);
    expect((await logIn(c, email, password)).status).toBe(200);
  });

  it('400 for an invalid e-mail address', async () => {
    const res = await client().post('/api/auth/forgot-password', { email: 'nope' });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('invalid_request');
  });

  it('500 when the reset e-mail cannot be sent, and only then', async () => {
    const c = client();
    const { email } = await verifiedUser(c);
    // Resend fails every attempt the mailer makes for this address.
    await injectFault({ vendor: 'resend', mode: 'fail', count: 3, match: email });
    const res = await c.post('/api/auth/forgot-password', { email });
    expect(res.status).toBe(500);
    expect(errorCode(res)).toBe('vendor_failed');
    expect(res.text).not.toMatch(/re_[A-Za-z0-9]/);
    expect((await c.post('/api/auth/forgot-password', { email })).status).toBe(200);
  });
});

describe('verify-email errors', () => {
  it('400 for a wrong token, or none', async () => {
    const c = client();
    const wrong = await c.post('/api/verify-email', { token: 'x'.repeat(32) });
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe('invalid_token');
    expect((await c.post('/api/verify-email', {})).status).toBe(400);
  });
});
