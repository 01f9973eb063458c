// signUp against in-memory fakes of its ports.
import { describe, expect, it } from 'vitest';
import { signUp, type SignUpDeps } from '../../../lib/auth/sign-up.ts';
import { hashToken } from '../../../lib/auth/verification-tokens.ts';
import { Conflict, InvalidInput, RateLimited, VendorError } from '../../../lib/errors.ts';
import { FakeIdentity, MemoryRateLimiter, MemoryTokens, settings, withLimits } from '../../support/auth-fakes.ts';
import { fakeMailer, recordingLogger } from '../../support/fakes.ts';

const NOW = new Date('2026-05-01T10:00:00Z');

function setup(overrides: Pick<SignUpDeps, 'settings'> = { settings }) {
  return {
    identity: new FakeIdentity(),
    tokens: new MemoryTokens(),
    mailer: fakeMailer(),
    limiter: new MemoryRateLimiter(),
    log: recordingLogger(),
    now: () => NOW,
    ...overrides,
  };
}
const request = (over: Partial<Parameters<typeof signUp>[1]> = {}) => ({
  email: 'New.Person@Example.com ',
  password: 'Secret123',
  metadata: { name: 'Ada', companyName: 'Acme Ltd' },
  clientIp: '203.0.113.5',
  ...over,
});

describe('signing up', () => {
  it('registers the user and answers the user with a null session', async () => {
    const deps = setup();
    const result = await signUp(deps, request());
    expect(result.session).toBeNull();
    expect(result.user).toMatchObject({ email: 'new.person@example.com', email_confirmed: false, metadata: { name: 'Ada', companyName: 'Acme Ltd' } });
    expect(deps.identity.users).toHaveLength(1);
  });

  it('stores only the hash of a fresh token, with the configured expiry, and e-mails the portal link', async () => {
    const deps = setup();
    await signUp(deps, request());
    const [email] = deps.mailer.sent;
    expect(email).toMatchObject({ to: 'new.person@example.com', kind: 'verify-email', subject: expect.any(String) });
    const link = /https:\/\/portal\.test\/verify\?token=([A-Za-z0-9_-]+)/.exec(email!.text);
    expect(link).not.toBeNull();
    const token = link![1]!;
    expect(email!.html).toContain(`https://portal.test/verify?token=${token}`);
    const [row] = [...deps.tokens.rows.values()];
    expect(row).toMatchObject({ tokenHash: hashToken(token), email: 'new.person@example.com', companyName: 'Acme Ltd', name: 'Ada' });
    expect(row!.expiresAt).toBe(Math.floor(NOW.getTime() / 1000) + 24 * 3600);
    expect(JSON.stringify([...deps.tokens.rows.values()])).not.toContain(token);
    expect(email!.idempotencyKey).not.toContain(token);
  });

  it('refuses a password that breaks the rule before asking the provider', async () => {
    const deps = setup();
    for (const password of ['short1A', 'alllower123', 'NoDigitsHere', `Aa1${'é'.repeat(35)}`]) {
      await expect(signUp(deps, request({ password }))).rejects.toMatchObject({ code: 'weak_password' });
    }
    expect(deps.identity.users).toHaveLength(0);
    expect(deps.mailer.sent).toHaveLength(0);
  });

  it('answers 409 for a taken address, creating no token and sending nothing', async () => {
    const deps = setup();
    deps.identity.addUser('new.person@example.com', 'Whatever1');
    const error = await signUp(deps, request()).catch((e) => e);
    expect(error).toBeInstanceOf(Conflict);
    expect(error.code).toBe('email_already_registered');
    expect(deps.tokens.rows.size).toBe(0);
    expect(deps.mailer.sent).toHaveLength(0);
  });

  it('limits signups per client IP', async () => {
    const deps = setup({ settings: withLimits({ signup: { limit: 2, windowSeconds: 600 } }) });
    await signUp(deps, request({ email: 'a@example.com' }));
    await signUp(deps, request({ email: 'b@example.com' }));
    const error = await signUp(deps, request({ email: 'c@example.com' })).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimited);
    expect(error.retryAfterSeconds).toBe(600);
    expect(await signUp(deps, request({ email: 'c@example.com', clientIp: '203.0.113.6' }))).toBeDefined();
  });

  it('limits signups per e-mail address across client IPs', async () => {
    const deps = setup({ settings: withLimits({ perEmail: { limit: 1, windowSeconds: 900 } }) });
    await signUp(deps, request({ email: 'x@example.com', clientIp: '1.1.1.1' }));
    await expect(signUp(deps, request({ email: 'X@example.com', clientIp: '2.2.2.2' }))).rejects.toBeInstanceOf(RateLimited);
    expect(deps.mailer.sent).toHaveLength(1);
  });

  it("answers 400 when the provider's own rules refuse the password or the address", async () => {
    const deps = setup();
    deps.identity.refuseRegistration = 'weak-password';
    await expect(signUp(deps, request())).rejects.toMatchObject({ code: 'weak_password', details: [{ path: '/body/password' }] });
    deps.identity.refuseRegistration = 'invalid-email';
    await expect(signUp(deps, request())).rejects.toMatchObject({ code: 'invalid_request', details: [{ path: '/body/email' }] });
    expect(deps.tokens.rows.size).toBe(0);
    expect(deps.mailer.sent).toHaveLength(0);
  });

  it("answers 400 email_address_not_authorized when the provider's mailer may not write to the address, and warns the operator", async () => {
    const deps = setup();
    deps.identity.refuseRegistration = 'address-not-authorized';
    await expect(signUp(deps, request())).rejects.toMatchObject({ code: 'email_address_not_authorized', details: [{ path: '/body/email' }] });
    expect(deps.log.entries).toContainEqual(expect.objectContaining({ level: 'warn', fields: { emailDomain: 'example.com' } }));
    expect(JSON.stringify(deps.log.entries)).not.toContain('new.person');
    expect(deps.tokens.rows.size).toBe(0);
    expect(deps.mailer.sent).toHaveLength(0);
  });

  it('passes on the provider saying too many', async () => {
    const deps = setup();
    deps.identity.throttleNext = true;
    await expect(signUp(deps, request())).rejects.toMatchObject({ retryAfterSeconds: 42 });
  });

  it('fails with the vendor error when the e-mail cannot be sent, and removes the user it registered, so signing up again works', async () => {
    const deps = setup();
    deps.mailer.failing = true;
    await expect(signUp(deps, request())).rejects.toBeInstanceOf(VendorError);
    expect(deps.identity.users).toHaveLength(0);
    expect(deps.identity.deletedUsers).toHaveLength(1);

    deps.mailer.failing = false;
    await expect(signUp(deps, request())).resolves.toMatchObject({ user: { email: 'new.person@example.com' } });
    expect(deps.identity.users).toHaveLength(1);
  });

  it('removes the registered user when the verification token cannot be stored', async () => {
    const deps = setup();
    deps.tokens.save = async () => {
      throw new Error('DynamoDB is down');
    };
    await expect(signUp(deps, request())).rejects.toThrow('DynamoDB is down');
    expect(deps.identity.users).toHaveLength(0);
    expect(deps.mailer.sent).toHaveLength(0);
  });

  it('answers the original error and logs the user id when the user cannot be removed (no service-role key)', async () => {
    const deps = setup();
    deps.mailer.failing = true;
    deps.identity.canDeleteUsers = false;
    await expect(signUp(deps, request())).rejects.toBeInstanceOf(VendorError);
    const [user] = deps.identity.users;
    expect(deps.log.entries).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'a failed signup left its user registered at the identity provider', fields: expect.objectContaining({ userId: user!.id }) }),
    );
    expect(JSON.stringify(deps.log.entries)).not.toContain('verify?token=');
  });

  it('leaves invalid input to the schema but still refuses an empty password', async () => {
    await expect(signUp(setup(), request({ password: '' }))).rejects.toBeInstanceOf(InvalidInput);
  });
});

describe('signing up with an address whose registration is unfinished', () => {
  it('contests it: 409, the earlier links void, the password replaced, and one e-mail with a recovery link to the reset page', async () => {
    const deps = setup();
    const mallory = deps.identity.addUser('victim@example.com', 'Mallory123', false);
    const repeated = await signUp(deps, request({ email: 'Victim@Example.com' })).catch((e) => e);
    expect(repeated).toBeInstanceOf(Conflict);
    expect(repeated.code).toBe('email_already_registered');
    expect(await deps.tokens.isVoided({ userId: mallory.id, createdAt: NOW.toISOString() })).toBe(true);
    expect(mallory.password).not.toBe('Mallory123');
    expect(mallory.password).not.toBe('Secret123');
    expect(mallory.confirmed).toBe(false);
    const [mail] = deps.mailer.sent;
    expect(deps.mailer.sent).toHaveLength(1);
    expect(mail).toMatchObject({ to: 'victim@example.com', kind: 'finish-signup', subject: 'Finish signing up' });
    expect(mail!.text).toContain(`redirect_to=${encodeURIComponent(settings.passwordResetRedirect)}`);
    expect(mail!.text).toContain('works once and for 60 minutes');
    expect(deps.tokens.rows.size).toBe(0);
    expect(deps.identity.deletedUsers).toEqual([]);
  });

  it('counts the contest under the signup limits, before anything is looked up', async () => {
    const deps = setup({ settings: withLimits({ perEmail: { limit: 1, windowSeconds: 900 } }) });
    deps.identity.addUser('victim@example.com', 'Mallory123', false);
    await expect(signUp(deps, request({ email: 'victim@example.com' }))).rejects.toBeInstanceOf(Conflict);
    await expect(signUp(deps, request({ email: 'victim@example.com' }))).rejects.toBeInstanceOf(RateLimited);
    expect(deps.mailer.sent).toHaveLength(1);
  });

  it('leaves a confirmed address alone: 409, nothing sent, nothing voided, the password kept', async () => {
    const deps = setup();
    const owner = deps.identity.addUser('owner@example.com', 'Owner1234', true);
    await expect(signUp(deps, request({ email: 'owner@example.com' }))).rejects.toBeInstanceOf(Conflict);
    expect(deps.mailer.sent).toEqual([]);
    expect(deps.identity.adminPasswordSets).toEqual([]);
    expect(deps.identity.recoveryLinksMade).toBe(0);
    expect(await deps.tokens.isVoided({ userId: owner.id, createdAt: NOW.toISOString() })).toBe(false);
    expect(owner.password).toBe('Owner1234');
  });

  it('without the admin interface changes nothing: the provider re-sends its own confirmation (signup.go)', async () => {
    const deps = setup();
    deps.identity.canCreateRecoveryLinks = false;
    const first = deps.identity.addUser('victim@example.com', 'Mallory123', false);
    await expect(signUp(deps, request({ email: 'victim@example.com' }))).rejects.toBeInstanceOf(Conflict);
    expect(deps.mailer.sent).toEqual([]);
    expect(first.password).toBe('Mallory123');
    expect(await deps.tokens.isVoided({ userId: first.id, createdAt: NOW.toISOString() })).toBe(false);
  });

  it('answers the failure when the e-mail cannot be sent, having voided the links all the same, and deletes nobody', async () => {
    const deps = setup();
    const mallory = deps.identity.addUser('victim@example.com', 'Mallory123', false);
    deps.mailer.failing = true;
    await expect(signUp(deps, request({ email: 'victim@example.com' }))).rejects.toBeInstanceOf(VendorError);
    expect(await deps.tokens.isVoided({ userId: mallory.id, createdAt: NOW.toISOString() })).toBe(true);
    expect(deps.identity.users).toHaveLength(1);
  });
});
