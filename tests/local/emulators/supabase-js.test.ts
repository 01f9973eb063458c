// A front end's own supabase-js calls against the GoTrue emulator, as the
// contract's flows make them: log in, open a session from an e-mailed link
// (verifyOtp with its token_hash, or setSession with the tokens a link puts
// in the landing page's fragment), read and update the user, refresh, log
// out; and the admin listing as supabase-js pages it. No request here is
// hand-made: whatever supabase-js sends, the emulator must take as GoTrue does.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { supabaseVendorWith } from '../../../local/emulators/supabase.ts';
import { useEmulators } from '../../support/emulators.ts';

const PORTAL = 'http://portal.test';
const emu = useEmulators(supabaseVendorWith({ siteUrl: 'http://dashboard.test', redirectAllowList: [`${PORTAL}/**`] }));
const options = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };
/** A browser's client: the anon key, its session kept in memory. */
const browser = (): SupabaseClient => createClient(emu.env.SUPABASE_URL!, emu.env.SUPABASE_ANON_KEY!, options);
/** A server's client: the service-role key, for the admin API. */
const server = (): SupabaseClient => createClient(emu.env.SUPABASE_URL!, emu.env.SUPABASE_SERVICE_ROLE_KEY!, options);
const newEmail = () => `${crypto.randomUUID()}@example.com`;

/** A user made through the admin API, confirmed, with this password. */
async function confirmedUser(password = 'Secret123') {
  const email = newEmail();
  const { data, error } = await server().auth.admin.createUser({ email, password, email_confirm: true });
  expect(error).toBeNull();
  return { email, password, id: data.user!.id };
}

/** The token hash of the latest e-mail the provider sent this address: the `token` of its /verify link. */
async function mailedTokenHash(email: string, kind: 'signup' | 'recovery') {
  const mails = await emu.get<{ to: string; kind: string; link: string }[]>('auth-emails');
  const mail = mails.find((m) => m.to === email && m.kind === kind);
  return new URL(mail!.link).searchParams.get('token')!;
}

describe('supabase-js against the GoTrue emulator', () => {
  it('logs in with a password, reads the user, refreshes the session and logs out, after which the old token is refused', async () => {
    const user = await confirmedUser();
    const client = browser();
    const login = await client.auth.signInWithPassword({ email: user.email.toUpperCase(), password: user.password });
    expect(login.error).toBeNull();
    expect(login.data.user).toMatchObject({ id: user.id, email: user.email });
    const first = login.data.session!;

    expect((await client.auth.getUser()).data.user).toMatchObject({ id: user.id });
    const refreshed = await client.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session!.refresh_token).not.toBe(first.refresh_token);
    expect((await client.auth.getUser()).data.user).toMatchObject({ id: user.id });
    // The spent refresh token is refused (one use only).
    expect((await browser().auth.refreshSession({ refresh_token: first.refresh_token })).error).toMatchObject({ code: 'refresh_token_not_found' });

    expect((await client.auth.signOut()).error).toBeNull();
    expect((await client.auth.getSession()).data.session).toBeNull();
    // GoTrue's 403 session_not_found, which supabase-js reads as a missing session.
    const after = await browser().auth.getUser(refreshed.data.session!.access_token);
    expect(after.error?.name).toBe('AuthSessionMissingError');
  });

  it('answers a wrong password with invalid_credentials', async () => {
    const user = await confirmedUser();
    const { data, error } = await browser().auth.signInWithPassword({ email: user.email, password: 'Wrong1234' });
    expect(error).toMatchObject({ status: 400, code: 'invalid_credentials' });
    expect(data.session).toBeNull();
  });

  it('confirms an address with verifyOtp and the token_hash of its signup e-mail, signed in at once; the hash works once', async () => {
    const email = newEmail();
    const signup = await browser().auth.signUp({ email, password: 'Secret123', options: { emailRedirectTo: `${PORTAL}/verify` } });
    expect(signup.error).toBeNull();
    expect(signup.data.session).toBeNull();
    const tokenHash = await mailedTokenHash(email, 'signup');

    const client = browser();
    const verified = await client.auth.verifyOtp({ token_hash: tokenHash, type: 'signup' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email, email_confirmed_at: expect.any(String) });
    expect((await client.auth.getUser()).data.user).toMatchObject({ email });

    const again = await browser().auth.verifyOtp({ token_hash: tokenHash, type: 'signup' });
    expect(again.error).toMatchObject({ status: 403, code: 'otp_expired' });
  });

  it("takes type 'email' for a token hash of either kind (verify.go, verifyTokenHash)", async () => {
    const email = newEmail();
    await browser().auth.signUp({ email, password: 'Secret123' });
    const verified = await browser().auth.verifyOtp({ token_hash: await mailedTokenHash(email, 'signup'), type: 'email' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email, email_confirmed_at: expect.any(String) });

    await browser().auth.resetPasswordForEmail(email, { redirectTo: `${PORTAL}/reset-password` });
    const recovered = await browser().auth.verifyOtp({ token_hash: await mailedTokenHash(email, 'recovery'), type: 'email' });
    expect(recovered.error).toBeNull();
    expect(recovered.data.session?.user.email).toBe(email);
  });

  it('resets a password: a recovery token hash opens a session, updateUser sets the new password, the old one stops working', async () => {
    const user = await confirmedUser();
    const link = await server().auth.admin.generateLink({ type: 'recovery', email: user.email, options: { redirectTo: `${PORTAL}/reset-password` } });
    expect(link.error).toBeNull();

    const client = browser();
    const opened = await client.auth.verifyOtp({ token_hash: link.data.properties!.hashed_token, type: 'recovery' });
    expect(opened.error).toBeNull();
    const updated = await client.auth.updateUser({ password: 'NewSecret456' });
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({ id: user.id });

    expect((await browser().auth.signInWithPassword({ email: user.email, password: user.password })).error).toMatchObject({ code: 'invalid_credentials' });
    expect((await browser().auth.signInWithPassword({ email: user.email, password: 'NewSecret456' })).error).toBeNull();
    // Same password again: refused as GoTrue does.
    expect((await client.auth.updateUser({ password: 'NewSecret456' })).error).toMatchObject({ status: 422, code: 'same_password' });
  });

  it('opens a session with setSession from the tokens an e-mailed link puts in the landing page fragment', async () => {
    const user = await confirmedUser();
    const link = await server().auth.admin.generateLink({ type: 'recovery', email: user.email, options: { redirectTo: `${PORTAL}/reset-password` } });
    const landing = new URL((await fetch(link.data.properties!.action_link, { redirect: 'manual' })).headers.get('location')!);
    expect(`${landing.origin}${landing.pathname}`).toBe(`${PORTAL}/reset-password`);
    const fragment = new URLSearchParams(landing.hash.slice(1));

    const client = browser();
    const set = await client.auth.setSession({ access_token: fragment.get('access_token')!, refresh_token: fragment.get('refresh_token')! });
    expect(set.error).toBeNull();
    expect(set.data.user).toMatchObject({ id: user.id });
    expect((await client.auth.updateUser({ data: { name: 'Ada' } })).data.user?.user_metadata).toMatchObject({ name: 'Ada' });
    expect((await client.auth.refreshSession()).error).toBeNull();
    expect((await client.auth.signOut({ scope: 'local' })).error).toBeNull();
  });

  it('judges e-mail addresses as GoTrue does (checkmail.ValidateFormat): a@b is one, xx:;x@x.x and x@-bad.com are not', async () => {
    for (const email of [`${crypto.randomUUID()}@b`, `o'brien+${crypto.randomUUID()}@example.co.uk`]) {
      const { error } = await browser().auth.signUp({ email, password: 'Secret123' });
      expect(error, email).toBeNull();
    }
    for (const email of ['xx:;x@x.x', 'x@-bad.com', 'x@bad-.com', 'x@x..com', 'x y@example.com', ' x@example.com', 'ünï@example.com', 'x@example.com.']) {
      const { error } = await browser().auth.signUp({ email, password: 'Secret123' });
      expect(error, email).toMatchObject({ status: 400, code: 'validation_failed', message: 'Unable to validate email address: invalid format' });
    }
    const tooLong = `${'x'.repeat(250)}@b.com`;
    expect((await server().auth.admin.createUser({ email: tooLong, password: 'Secret123' })).error).toMatchObject({ status: 400, message: 'An email address is too long' });
  });

  it('lists users page by page with the total and the next and last pages (Link, X-Total-Count)', async () => {
    const admin = server().auth.admin;
    for (let i = 0; i < 3; i++) await confirmedUser();
    const { data: all } = await admin.listUsers({ page: 1, perPage: 1000 });
    const total = (all as { total: number }).total;
    expect(total).toBeGreaterThanOrEqual(3);
    expect(total).toBe(all.users.length);

    // Two pages (supabase-js reads a page number's first digit only, so fewer than ten).
    const perPage = total - 1;
    const first = await admin.listUsers({ page: 1, perPage });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ total, nextPage: 2, lastPage: 2 });
    expect(first.data.users).toHaveLength(perPage);
    const last = await admin.listUsers({ page: 2, perPage });
    expect(last.data).toMatchObject({ total, nextPage: null, lastPage: 2 });
    expect(last.data.users).toHaveLength(1);
    expect(new Set([...first.data.users, ...last.data.users].map((u) => u.id)).size).toBe(total);

    const bad = await admin.listUsers({ page: -1 });
    expect(bad.error).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});
