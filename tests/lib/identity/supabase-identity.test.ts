// The Supabase identity adapter, through supabase-js itself, against the local
// GoTrue emulator (no mock of the SDK anywhere).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/config.ts';
import { RateLimited, VendorError } from '../../../lib/errors.ts';
import type { IdentityProvider } from '../../../lib/identity/identity.ts';
import { supabaseIdentity } from '../../../lib/identity/supabase-identity.ts';
import { supabaseVendorWith } from '../../../local/emulators/supabase.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';
import { identityUsers } from '../../support/identity-users.ts';
import { newEmail } from '../../support/users.ts';

const SITE_URL = 'http://dashboard.test';
const emu = useEmulators(supabaseVendorWith({ siteUrl: SITE_URL, redirectAllowList: ['http://portal.test/**'] }));
// A project still on Supabase's built-in mailer, which writes to its team only.
const teamOnly = useEmulators(supabaseVendorWith({ authorizedAddresses: ['team@agency.test'] }));
const settings = () => ({ url: emu.env.SUPABASE_URL!, anonKey: emu.env.SUPABASE_ANON_KEY!, serviceRoleKey: emu.env.SUPABASE_SERVICE_ROLE_KEY! });
const identity = (): IdentityProvider => supabaseIdentity(settings(), quickPolicy);
const withoutAdmin = (): IdentityProvider => supabaseIdentity({ ...settings(), serviceRoleKey: undefined }, quickPolicy);
const REDIRECT = 'http://portal.test/reset-password';
const { registered, confirmed, signedIn, followRecoveryLink, recoveryToken } = identityUsers(identity, REDIRECT);

describe('the Supabase identity adapter', () => {
  it('registers a user whose address still needs confirming, keeping the metadata', async () => {
    const { user } = await registered();
    expect(user).toMatchObject({ emailConfirmed: false, userMetadata: { companyName: 'Acme' } });
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('creates users through the admin API with the service-role key: Supabase sends nothing, and any taken address is already registered', async () => {
    const { email, user } = await registered();
    expect((await emu.get<{ to: string }[]>('auth-emails')).filter((m) => m.to === email)).toEqual([]);
    expect(await identity().register({ email, password: 'Another123', metadata: {} })).toEqual({ outcome: 'already-registered' });
    await identity().confirmEmail(user.id);
    expect(await identity().register({ email, password: 'Another123', metadata: {} })).toEqual({ outcome: 'already-registered' });
    expect(await identity().signIn(email, 'Secret123')).toMatchObject({ outcome: 'signed-in', user: { id: user.id } });
  });

  it('registers a user whose first answer was lost, when the attempt sent again finds the address taken by it', async () => {
    const email = newEmail();
    // Supabase creates the user, and its answer never comes: the retry meets email_exists for the user the first attempt made.
    await emu.fault({ vendor: 'supabase', mode: 'lose-answer', count: 1, match: email });
    const registration = await identity().register({ email, password: 'Secret123', metadata: { companyName: 'Acme' } });
    expect(registration).toMatchObject({ outcome: 'registered', user: { email, emailConfirmed: false, userMetadata: { companyName: 'Acme' } } });
    const calls = await emu.get<{ method: string; path: string; fault?: string }[]>(`requests?match=${encodeURIComponent(email)}`);
    const creates = calls.filter((r) => r.method === 'POST' && r.path === '/auth/v1/admin/users');
    expect(creates.map((r) => r.fault ?? 'answered')).toEqual(['lose-answer', 'answered']);
    expect(await identity().signIn(email, 'Secret123')).toEqual({ outcome: 'email-not-confirmed' });
    if (registration.outcome === 'registered') expect(await identity().deleteUser(registration.user.id)).toBe(true);
  });

  it("still reads someone else's address as already registered after a lost answer", async () => {
    const { email } = await registered();
    await emu.fault({ vendor: 'supabase', mode: 'fail', count: 1, match: `"email":"${email}"` });
    expect(await identity().register({ email, password: 'Secret123', metadata: {} })).toEqual({ outcome: 'already-registered' });
  });

  it('without the key, reads every repeated signup as already registered: within the resend interval, past it, and confirmed', async () => {
    const provider = withoutAdmin();
    const email = newEmail();
    const first = await provider.register({ email, password: 'Secret123', metadata: {} });
    expect(first).toMatchObject({ outcome: 'registered' });
    expect((await emu.get<{ to: string }[]>('auth-emails')).filter((m) => m.to === email)).toHaveLength(1);

    expect(await provider.register({ email, password: 'Another123', metadata: {} })).toEqual({ outcome: 'already-registered' });
    await fetch(`${emu.url}/_local/supabase/backdate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, seconds: 61 }) });
    expect(await provider.register({ email, password: 'Another123', metadata: {} })).toEqual({ outcome: 'already-registered' });
    if (first.outcome !== 'registered') return;
    await identity().confirmEmail(first.user.id);
    expect(await provider.register({ email, password: 'Another123', metadata: {} })).toEqual({ outcome: 'already-registered' });
    expect(await provider.signIn(email, 'Secret123')).toMatchObject({ outcome: 'signed-in', user: { id: first.user.id } });
  });

  it('deletes a user through the admin interface, freeing the address; false for one that does not exist', async () => {
    const { email, user } = await registered();
    expect(await identity().deleteUser(user.id)).toBe(true);
    expect(await identity().confirmEmail(user.id)).toBeUndefined();
    expect(await identity().deleteUser(user.id)).toBe(false);
    expect(await identity().register({ email, password: 'Secret123', metadata: {} })).toMatchObject({ outcome: 'registered' });
    await expect(withoutAdmin().deleteUser(user.id)).rejects.toBeInstanceOf(ConfigError);
  });

  it('passes the provider throttling a signup on as 429 with its wait', async () => {
    for (const provider of [identity(), withoutAdmin()]) {
      const email = newEmail();
      await emu.fault({ vendor: 'supabase', mode: 'throttle', count: 1, match: email, retryAfterSeconds: 7 });
      const error = await provider.register({ email, password: 'Secret123', metadata: {} }).catch((e) => e);
      expect(error).toBeInstanceOf(RateLimited);
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
    }
  });

  it("answers the provider's own refusals of a password or an address", async () => {
    expect(await withoutAdmin().register({ email: newEmail(), password: 'abc', metadata: {} })).toEqual({ outcome: 'weak-password' });
    for (const provider of [identity(), withoutAdmin()]) {
      expect(await provider.register({ email: 'not an address', password: 'Secret123', metadata: {} })).toEqual({ outcome: 'invalid-email' });
    }
  });

  it('says when the provider may not e-mail the address (built-in mailer), and that needs no e-mail with the admin API', async () => {
    const on = (key?: string) => supabaseIdentity({ url: teamOnly.env.SUPABASE_URL!, anonKey: teamOnly.env.SUPABASE_ANON_KEY!, serviceRoleKey: key }, quickPolicy);
    expect(await on().register({ email: newEmail(), password: 'Secret123', metadata: {} })).toEqual({ outcome: 'address-not-authorized' });
    expect(await on(teamOnly.env.SUPABASE_SERVICE_ROLE_KEY).register({ email: newEmail(), password: 'Secret123', metadata: {} })).toMatchObject({ outcome: 'registered' });
  });

  it('tells a wrong password, an unknown address and an unconfirmed address apart only as the provider does', async () => {
    const { email } = await confirmed();
    expect(await identity().signIn(email, 'Wrong1234')).toEqual({ outcome: 'invalid-credentials' });
    expect(await identity().signIn(newEmail(), 'Wrong1234')).toEqual({ outcome: 'invalid-credentials' });
    const pending = await registered();
    expect(await identity().signIn(pending.email, pending.password)).toEqual({ outcome: 'email-not-confirmed' });
  });

  it('signs in a confirmed user with a session whose token names the user', async () => {
    const { email, user } = await confirmed();
    const result = await identity().signIn(email, 'Secret123');
    expect(result).toMatchObject({ outcome: 'signed-in', user: { id: user.id, email, emailConfirmed: true } });
    if (result.outcome !== 'signed-in') return;
    expect(result.session).toMatchObject({ tokenType: 'bearer', expiresIn: 3600, refreshToken: expect.any(String) });
    expect(await identity().userForAccessToken(result.session.accessToken)).toMatchObject({ id: user.id, email });
  });

  it('gives no user for a missing, malformed or forged token', async () => {
    expect(await identity().userForAccessToken('')).toBeUndefined();
    expect(await identity().userForAccessToken('not-a-jwt')).toBeUndefined();
    const { accessToken } = await signedIn();
    const [head, body] = accessToken.split('.');
    expect(await identity().userForAccessToken(`${head}.${body}.${'A'.repeat(43)}`)).toBeUndefined();
  });

  it('ends every session of the user, so the same token is refused afterwards', async () => {
    const { accessToken, email } = await signedIn();
    const other = await identity().signIn(email, 'Secret123');
    expect(await identity().endSessions(accessToken)).toBe(true);
    expect(await identity().userForAccessToken(accessToken)).toBeUndefined();
    if (other.outcome !== 'signed-in') throw new Error('no second session');
    expect(await identity().userForAccessToken(other.session.accessToken)).toBeUndefined();
    expect(await identity().endSessions(accessToken)).toBe(false);
  });

  it('confirms an address through the admin interface, and says when the user does not exist', async () => {
    const { user } = await registered();
    expect(await identity().confirmEmail(user.id)).toMatchObject({ id: user.id, emailConfirmed: true });
    expect(await identity().confirmEmail(crypto.randomUUID())).toBeUndefined();
  });

  it('creates a recovery link that lands on the redirect with a token for a recovery session, once', async () => {
    const { email, user } = await confirmed();
    const link = await identity().createRecoveryLink(email, REDIRECT);
    expect(link).toContain('/auth/v1/verify?token=');
    const { landing, token } = await followRecoveryLink(link!);
    expect(landing).toBe(REDIRECT);
    const session = await identity().openRecoverySession(token!);
    expect(session?.user.id).toBe(user.id);
    expect(await session!.updatePassword('NewSecret456')).toBe('changed');
    expect(await identity().signIn(email, 'NewSecret456')).toMatchObject({ outcome: 'signed-in' });
    expect(await identity().signIn(email, 'Secret123')).toEqual({ outcome: 'invalid-credentials' });
    expect((await followRecoveryLink(link!)).token).toBeNull();
  });

  it('lands a recovery link whose redirect is outside the allow list on the Site URL, silently', async () => {
    const { email } = await confirmed();
    const link = await identity().createRecoveryLink(email, 'https://evil.example/reset-password');
    const { landing, token } = await followRecoveryLink(link!);
    expect(landing).toBe(`${SITE_URL}/`);
    expect(token).toBeTruthy();
  });

  it("opens a recovery session whose amr is 'otp', as current GoTrue issues it, and resets through it", async () => {
    const { email } = await confirmed();
    const token = await recoveryToken(email);
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);
    const session = await identity().openRecoverySession(token);
    expect(await session!.updatePassword('NewSecret456')).toBe('changed');
    expect(await identity().signIn(email, 'NewSecret456')).toMatchObject({ outcome: 'signed-in' });
  });

  it('looks a user up by e-mail through the admin interface, confirmed or not, and only that address: not one that contains it', async () => {
    const { email, user } = await registered();
    // Addresses the provider's filter also matches (it is a substring; _ would be a wildcard): never the answer.
    const [local, domain] = email.split('@');
    const lookalike = `x${email}`;
    await identity().register({ email: lookalike, password: 'Secret123', metadata: {} });
    await identity().register({ email: `${local}xa@${domain}`, password: 'Secret123', metadata: {} });
    expect(await identity().userByEmail(email.toUpperCase())).toMatchObject({ id: user.id, email, emailConfirmed: false });
    await identity().confirmEmail(user.id);
    expect(await identity().userByEmail(email)).toMatchObject({ id: user.id, emailConfirmed: true });
    expect(await identity().userByEmail(`${local}_a@${domain}`)).toBeUndefined();
    expect(await identity().userByEmail(newEmail())).toBeUndefined();
    await expect(withoutAdmin().userByEmail(email)).rejects.toBeInstanceOf(ConfigError);
  });

  it('creates no recovery link for an unknown address', async () => {
    expect(await identity().createRecoveryLink(newEmail(), REDIRECT)).toBeUndefined();
  });

  it('has the provider send its own recovery e-mail without the admin interface, to the same landing page', async () => {
    const provider = withoutAdmin();
    expect(provider.canCreateRecoveryLinks).toBe(false);
    const { email } = await confirmed();
    await provider.sendRecoveryEmail(email, REDIRECT);
    await provider.sendRecoveryEmail(newEmail(), REDIRECT);
    const mails = await emu.get<{ to: string; kind: string; link: string }[]>('auth-emails');
    const mine = mails.filter((m) => m.to === email && m.kind === 'recovery');
    expect(mine).toHaveLength(1);
    expect((await followRecoveryLink(mine[0]!.link)).landing).toBe(REDIRECT);
  });

  it("reports a wrong API key as the provider failing, not as the user's token being refused", async () => {
    const { accessToken } = await signedIn();
    const misconfigured = supabaseIdentity({ ...settings(), anonKey: 'not-the-anon-key' }, quickPolicy);
    await expect(misconfigured.userForAccessToken(accessToken)).rejects.toBeInstanceOf(VendorError);
    await expect(misconfigured.endSessions(accessToken)).rejects.toBeInstanceOf(VendorError);
  });

  it('needs the service-role key for admin work', async () => {
    const provider = withoutAdmin();
    await expect(provider.createRecoveryLink(newEmail(), REDIRECT)).rejects.toBeInstanceOf(ConfigError);
    await expect(provider.confirmEmail(crypto.randomUUID())).rejects.toBeInstanceOf(ConfigError);
  });

  it("opens no recovery session with a login's token, live as it is", async () => {
    const { email, accessToken } = await signedIn();
    expect(await identity().userForAccessToken(accessToken)).toMatchObject({ email });
    expect(await identity().openRecoverySession(accessToken)).toBeUndefined();
  });

  it('opens no recovery session with an expired, revoked or garbled token', async () => {
    const { email } = await signedIn();
    const accessToken = await recoveryToken(email);
    const minted = await fetch(`${emu.url}/_local/supabase/recovery`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, issuedSecondsAgo: 3601 }),
    }).then((r) => r.json() as Promise<{ action_link: string; access_token: string }>);
    expect(await identity().openRecoverySession(minted.access_token)).toBeUndefined();
    expect(await identity().openRecoverySession('garbage')).toBeUndefined();
    // Recovery-shaped claims under a header that is no JSON: supabase-js's setSession throws on it before asking Auth.
    const [, claims, signature] = accessToken.split('.');
    expect(await identity().openRecoverySession(`${Buffer.from('abc').toString('base64url')}.${claims}.${signature}`)).toBeUndefined();
    await identity().endSessions(accessToken);
    expect(await identity().openRecoverySession(accessToken)).toBeUndefined();
  });

  it('reports a refused new password, and sets a password as admin', async () => {
    const { email, user } = await signedIn();
    const session = await identity().openRecoverySession(await recoveryToken(email));
    expect(await session!.updatePassword('Secret123')).toBe('same-password');
    expect(await session!.updatePassword('abc')).toBe('weak-password');
    expect(await identity().setPasswordAsAdmin(user.id, 'ByAdmin789')).toBe('changed');
    expect(await identity().signIn(email, 'ByAdmin789')).toMatchObject({ outcome: 'signed-in' });
  });

  it("reports a change the account's second factor forbids in a recovery session as 'refused', not 'failed': the admin interface, which checks no factor, must not be asked", async () => {
    const { email } = await signedIn();
    await fetch(`${emu.url}/_local/supabase/mfa`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    const session = await identity().openRecoverySession(await recoveryToken(email));
    expect(await session!.updatePassword('NewSecret456')).toBe('refused');
    expect(await identity().signIn(email, 'Secret123')).toMatchObject({ outcome: 'signed-in' });
  });

  it("reports a direct update the provider keeps failing as 'failed', after retries", async () => {
    const { email } = await signedIn();
    const session = await identity().openRecoverySession(await recoveryToken(email));
    // Only the session's own PUT /user: its body starts with the password.
    await emu.fault({ vendor: 'supabase', mode: 'fail', count: quickPolicy.maxAttempts, match: '/auth/v1/user {"password"' });
    expect(await session!.updatePassword('NewSecret456')).toBe('failed');
    expect(await emu.get('faults')).toEqual([]);
  });

  it('retries a failing provider, and gives up with a transient VendorError', async () => {
    const { email } = await confirmed();
    await emu.fault({ vendor: 'supabase', mode: 'fail', count: quickPolicy.maxAttempts - 1, match: email });
    expect(await identity().signIn(email, 'Secret123')).toMatchObject({ outcome: 'signed-in' });
    await emu.fault({ vendor: 'supabase', mode: 'fail', count: 10, match: email });
    const error = await identity().signIn(email, 'Secret123').catch((e) => e);
    expect(error).toBeInstanceOf(VendorError);
    expect(error).toMatchObject({ name: 'VendorUnavailable', vendor: 'supabase' });
    await emu.reset();
  });

  it('passes a throttling provider on as 429', async () => {
    const { email } = await confirmed();
    await emu.fault({ vendor: 'supabase', mode: 'throttle', count: 1, match: email });
    await expect(identity().signIn(email, 'Secret123')).rejects.toBeInstanceOf(RateLimited);
  });

  it('times out a hanging provider instead of hanging the request', async () => {
    const { email } = await confirmed();
    await emu.fault({ vendor: 'supabase', mode: 'hang', count: 10, match: email });
    const error = await identity().signIn(email, 'Secret123').catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorUnavailable' });
    expect(error.message).toContain('could not be reached');
    await emu.reset();
  });
});
