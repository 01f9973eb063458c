// A repeated signup of a registered address, through the signup use case and
// the real Supabase adapter (supabase-js) against the GoTrue emulator, which
// answers as supabase/auth's signup.go does: within 60 s of the last
// confirmation e-mail a 429, past it the REAL user (and the old password
// kept), for a confirmed address an obfuscated user. Whatever the provider
// answers, the signup says 409 and deletes nobody. Without the service-role
// key it changes nothing (no token, no e-mail, no password); with it, an
// unconfirmed registration is contested (sign-up.ts): its links are void, its
// password is replaced, and the mailbox gets a recovery link to choose one.
import { describe, expect, it } from 'vitest';
import { signUp } from '../../../lib/auth/sign-up.ts';
import { verifyEmail } from '../../../lib/auth/verify-email.ts';
import { Conflict, InvalidInput, VendorError } from '../../../lib/errors.ts';
import type { IdentityProvider } from '../../../lib/identity/identity.ts';
import { supabaseIdentity } from '../../../lib/identity/supabase-identity.ts';
import { supabaseVendor } from '../../../local/emulators/supabase.ts';
import { fakeMemberships } from '../../support/account-fakes.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';
import { fakeAccounts, fakeMailer, fakeSlugs, recordingLogger } from '../../support/fakes.ts';
import { MemoryRateLimiter, MemoryTokens, settings } from '../../support/auth-fakes.ts';

const emu = useEmulators(supabaseVendor);
const withKey = (): IdentityProvider =>
  supabaseIdentity({ url: emu.env.SUPABASE_URL!, anonKey: emu.env.SUPABASE_ANON_KEY!, serviceRoleKey: emu.env.SUPABASE_SERVICE_ROLE_KEY! }, quickPolicy);
const withoutKey = (): IdentityProvider => supabaseIdentity({ url: emu.env.SUPABASE_URL!, anonKey: emu.env.SUPABASE_ANON_KEY! }, quickPolicy);

const FIRST = 'Secret123';
const SECOND = 'Another456';

function service(identity: IdentityProvider) {
  const deps = { identity, tokens: new MemoryTokens(), mailer: fakeMailer(), limiter: new MemoryRateLimiter(), settings, log: recordingLogger() };
  const signUpAs = (email: string, password: string) => signUp(deps, { email, password, metadata: { companyName: 'Acme' }, clientIp: '203.0.113.9' });
  return { deps, signUpAs };
}

const providerUsers = async (email: string) => (await emu.get<{ id: string; email: string }[]>('auth-users')).filter((u) => u.email === email);
const backdate = (email: string, seconds: number) =>
  fetch(`${emu.url}/_local/supabase/backdate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, seconds }) });
const tokenIn = (text: string) => /verify\?token=([A-Za-z0-9_-]+)/.exec(text)![1]!;

describe('a repeated signup without the service-role key', () => {
  const provider = withoutKey;
  it('answers 409 within the 60 s resend interval (where the provider says 429)', async () => {
    const { deps, signUpAs } = service(provider());
    const email = `${crypto.randomUUID()}@example.com`;
    await signUpAs(email, FIRST);
    const inside = await signUpAs(email, SECOND).catch((e) => e);
    expect(inside).toBeInstanceOf(Conflict);
    expect(inside.code).toBe('email_already_registered');
    expect(deps.mailer.sent).toHaveLength(1);
  });

  it('answers 409 past the interval (where the provider answers the real user), storing no token, sending nothing, keeping the first password', async () => {
    const { deps, signUpAs } = service(provider());
    const email = `${crypto.randomUUID()}@example.com`;
    await signUpAs(email, FIRST);
    const [user] = await providerUsers(email);
    await backdate(email, 61);

    const past = await signUpAs(email, SECOND).catch((e) => e);
    // Nothing changed: one token, one e-mail, the same user.
    expect(deps.mailer.sent).toHaveLength(1);
    expect(deps.tokens.rows.size).toBe(1);
    expect(await providerUsers(email)).toEqual([expect.objectContaining({ id: user!.id })]);
    expect(past).toBeInstanceOf(Conflict);
    expect(past.code).toBe('email_already_registered');

    // The first verification link still works, and the first password is the one that logs in.
    const verified = await verifyEmail({ identity: withKey(), tokens: deps.tokens, accounts: fakeAccounts().store, slugs: fakeSlugs(), memberships: fakeMemberships(), settings }, tokenIn(deps.mailer.sent[0]!.text));
    expect(verified).toMatchObject({ success: true, email });
    expect(await withKey().signIn(email, FIRST)).toMatchObject({ outcome: 'signed-in', user: { id: user!.id } });
    expect(await withKey().signIn(email, SECOND)).toEqual({ outcome: 'invalid-credentials' });

    // Confirmed now: a repeat is still 409, and still changes nothing.
    const confirmed = await signUpAs(email, SECOND).catch((e) => e);
    expect(confirmed).toBeInstanceOf(Conflict);
    expect(deps.mailer.sent).toHaveLength(1);
    expect(await withKey().signIn(email, FIRST)).toMatchObject({ outcome: 'signed-in' });
  });

  it('deletes nobody when our e-mail send fails during a repeated signup', async () => {
    const { deps, signUpAs } = service(provider());
    const email = `${crypto.randomUUID()}@example.com`;
    await signUpAs(email, FIRST);
    const [user] = await providerUsers(email);
    await backdate(email, 61);

    deps.mailer.failing = true;
    const repeated = await signUpAs(email, SECOND).catch((e) => e);
    expect(await providerUsers(email)).toEqual([expect.objectContaining({ id: user!.id })]);
    expect(repeated).toBeInstanceOf(Conflict);
    await withKey().confirmEmail(user!.id);
    expect(await withKey().signIn(email, FIRST)).toMatchObject({ outcome: 'signed-in' });
  });
});

describe('a repeated signup with the service-role key', () => {
  const verifyDeps = (tokens: MemoryTokens) => {
    return { identity: withKey(), tokens, accounts: fakeAccounts().store, slugs: fakeSlugs(), memberships: fakeMemberships(), settings };
  };
  /** The recovery link of the finish-signup e-mail, opened as a browser would: the token of its session. */
  const recoveryTokenIn = async (text: string) => {
    const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(text)![0];
    const landing = new URL((await fetch(link, { redirect: 'manual' })).headers.get('location')!);
    return new URLSearchParams(landing.hash.slice(1)).get('access_token')!;
  };

  it('contests an unconfirmed registration, inside the resend interval or past it: 409, the first link void, the first password gone, one e-mail to choose a password', async () => {
    const { deps, signUpAs } = service(withKey());
    const email = `${crypto.randomUUID()}@example.com`;
    await signUpAs(email, FIRST);
    const [user] = await providerUsers(email);
    const firstToken = tokenIn(deps.mailer.sent[0]!.text);

    const repeated = await signUpAs(email, SECOND).catch((e) => e);
    expect(repeated).toBeInstanceOf(Conflict);
    expect(repeated.code).toBe('email_already_registered');
    expect(deps.mailer.sent.map((m) => [m.kind, m.subject])).toEqual([
      ['verify-email', 'Confirm your e-mail address'],
      ['finish-signup', 'Finish signing up'],
    ]);
    expect(deps.tokens.rows.size).toBe(1);
    expect(await providerUsers(email)).toEqual([expect.objectContaining({ id: user!.id, email_confirmed_at: null })]);

    const refused = await verifyEmail(verifyDeps(deps.tokens), firstToken).catch((e) => e);
    expect(refused).toBeInstanceOf(InvalidInput);
    expect(refused.code).toBe('invalid_token');
    expect(await withKey().signIn(email, FIRST)).toEqual({ outcome: 'invalid-credentials' });
    expect(await withKey().signIn(email, SECOND)).toEqual({ outcome: 'invalid-credentials' });

    // Opening the link confirms the address (recoverVerify); the password is whatever the mailbox chooses there.
    const session = await withKey().openRecoverySession(await recoveryTokenIn(deps.mailer.sent[1]!.text));
    expect(session?.user).toMatchObject({ id: user!.id, emailConfirmed: true });
    expect(await session!.updatePassword('Mailbox789')).toBe('changed');
    expect(await withKey().signIn(email, 'Mailbox789')).toMatchObject({ outcome: 'signed-in', user: { id: user!.id } });

    // Confirmed now: a repeat is still 409, and changes nothing.
    expect(await signUpAs(email, SECOND).catch((e) => e)).toBeInstanceOf(Conflict);
    expect(deps.mailer.sent).toHaveLength(2);
    expect(await withKey().signIn(email, 'Mailbox789')).toMatchObject({ outcome: 'signed-in' });
  });

  it('sends the verification again for a repeat with the password the address was registered with (a form sent twice): 409, nothing contested, and that password logs in once verified', async () => {
    const { deps, signUpAs } = service(withKey());
    const email = `${crypto.randomUUID()}@example.com`;
    await signUpAs(email, FIRST);
    const [user] = await providerUsers(email);

    const twice = await signUpAs(email, FIRST).catch((e) => e);
    expect(twice).toBeInstanceOf(Conflict);
    expect(twice.code).toBe('email_already_registered');
    expect(deps.mailer.sent.map((m) => [m.kind, m.subject])).toEqual([
      ['verify-email', 'Confirm your e-mail address'],
      ['verify-email', 'Confirm your e-mail address'],
    ]);
    // Either link confirms the address; the first password stands and logs in.
    const [first, second] = deps.mailer.sent.map((m) => tokenIn(m.text));
    expect(await verifyEmail(verifyDeps(deps.tokens), second!)).toMatchObject({ success: true, email });
    expect(await withKey().signIn(email, FIRST)).toMatchObject({ outcome: 'signed-in', user: { id: user!.id } });
    expect(first).not.toBe(second);
  });

  it('deletes nobody when the e-mail of a contest fails: the failure is the answer, and the next signup sends it', async () => {
    const { deps, signUpAs } = service(withKey());
    const email = `${crypto.randomUUID()}@example.com`;
    await signUpAs(email, FIRST);
    const [user] = await providerUsers(email);

    deps.mailer.failing = true;
    expect(await signUpAs(email, SECOND).catch((e) => e)).toBeInstanceOf(VendorError);
    expect(await providerUsers(email)).toEqual([expect.objectContaining({ id: user!.id })]);
    deps.mailer.failing = false;
    expect(await signUpAs(email, SECOND).catch((e) => e)).toBeInstanceOf(Conflict);
    expect(deps.mailer.sent.map((m) => m.kind)).toEqual(['verify-email', 'finish-signup']);
  });
});
