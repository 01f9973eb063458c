// requestPasswordReset (forgot-password) and resetPassword against in-memory fakes.
import { describe, expect, it } from 'vitest';
import { PASSWORD_RESET_REQUESTED, requestPasswordReset } from '../../../lib/auth/request-password-reset.ts';
import { resetPassword } from '../../../lib/auth/reset-password.ts';
import { InvalidInput, RateLimited, VendorError } from '../../../lib/errors.ts';
import { FakeIdentity, fakeJwt, MemoryRateLimiter, settings, withLimits } from '../../support/auth-fakes.ts';
import { fakeMailer, recordingLogger } from '../../support/fakes.ts';

const ip = '192.0.2.44';

function setup(limits = settings) {
  const identity = new FakeIdentity();
  const ada = identity.addUser('ada@example.com', 'Secret123');
  return { identity, mailer: fakeMailer(), limiter: new MemoryRateLimiter(), settings: limits, log: recordingLogger(), ada };
}

describe('asking for a password reset', () => {
  it('generates a recovery link landing on the reset page and sends our e-mail with it', async () => {
    const deps = setup();
    expect(await requestPasswordReset(deps, { email: 'Ada@example.com', clientIp: ip })).toEqual(PASSWORD_RESET_REQUESTED);
    const [email] = deps.mailer.sent;
    expect(email).toMatchObject({ to: 'ada@example.com', kind: 'password-reset' });
    const link = /https:\/\/id\.test\/verify\?\S+/.exec(email!.text)![0];
    expect(new URL(link).searchParams.get('redirect_to')).toBe('https://portal.test/reset-password');
    expect(email!.html).toContain(link.replaceAll('&', '&amp;'));
    expect(email!.text).toContain('60 minutes');
  });

  it('does the same work for an unknown address: the same identity call and one e-mail, in the same order (timing tells nothing)', async () => {
    const deps = setup();
    const calls: string[] = [];
    // Every identity and mailer call, in order, by name: what a clock at the client could tell apart.
    const record = <T extends object>(name: string, target: T): T =>
      new Proxy(target, {
        get: (t, key, receiver) => {
          const value = Reflect.get(t, key, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(`${name}.${String(key)}`);
            return value.apply(t, args);
          };
        },
      });
    const traced = { ...deps, identity: record('identity', deps.identity), mailer: record('mailer', deps.mailer) };

    const known = await requestPasswordReset(traced, { email: 'ada@example.com', clientIp: ip });
    const knownCalls = calls.splice(0);
    const unknown = await requestPasswordReset(traced, { email: 'nobody@example.com', clientIp: ip });
    const unknownCalls = calls.splice(0);

    expect(JSON.stringify(unknown)).toBe(JSON.stringify(known));
    expect(knownCalls).toEqual(['identity.createRecoveryLink', 'mailer.send']);
    expect(unknownCalls).toEqual(knownCalls);
    expect(deps.mailer.sent.map((m) => m.to)).toEqual(['ada@example.com', 'nobody@example.com']);
  });

  it('tells an unknown address that someone asked, that it has no account, and where to sign up', async () => {
    const deps = setup();
    await requestPasswordReset(deps, { email: 'Nobody@Example.com', clientIp: ip });
    const [email] = deps.mailer.sent;
    expect(email).toMatchObject({ to: 'nobody@example.com', kind: 'password-reset-no-account' });
    expect(email!.text).toMatch(/no account/i);
    expect(email!.text).toContain('https://dashboard.test/signup');
    expect(email!.html).toContain('href="https://dashboard.test/signup"');
    expect(email!.text).not.toMatch(/id\.test\/verify/);
  });

  it('fails (500) only when our e-mail cannot be sent, for a known and an unknown address alike', async () => {
    const deps = setup();
    deps.mailer.failing = true;
    await expect(requestPasswordReset(deps, { email: 'ada@example.com', clientIp: ip })).rejects.toBeInstanceOf(VendorError);
    await expect(requestPasswordReset(deps, { email: 'nobody@example.com', clientIp: ip })).rejects.toBeInstanceOf(VendorError);
  });

  it("without the admin interface, has the provider send its reset e-mail to the same landing page", async () => {
    const deps = setup();
    deps.identity.canCreateRecoveryLinks = false;
    await requestPasswordReset(deps, { email: 'ada@example.com', clientIp: ip });
    await requestPasswordReset(deps, { email: 'nobody@example.com', clientIp: ip });
    expect(deps.identity.recoveryEmails).toEqual([{ email: 'ada@example.com', redirectTo: 'https://portal.test/reset-password' }]);
    expect(deps.mailer.sent).toHaveLength(0);
  });

  it("answers as usual when the provider throttles its e-mail to an address, which would otherwise betray the account", async () => {
    const deps = setup();
    deps.identity.canCreateRecoveryLinks = false;
    deps.identity.throttleNext = true;
    expect(await requestPasswordReset(deps, { email: 'ada@example.com', clientIp: ip })).toEqual(PASSWORD_RESET_REQUESTED);
    expect(deps.log.entries.map((e) => e.level)).toContain('warn');
  });

  it('limits requests per client IP (429), and per e-mail address by sending nothing more, answered as usual', async () => {
    const byIp = setup(withLimits({ forgotPassword: { limit: 1, windowSeconds: 900 } }));
    await requestPasswordReset(byIp, { email: 'a@example.com', clientIp: ip });
    await expect(requestPasswordReset(byIp, { email: 'b@example.com', clientIp: ip })).rejects.toBeInstanceOf(RateLimited);
    const byEmail = setup(withLimits({ perEmail: { limit: 1, windowSeconds: 900 } }));
    await requestPasswordReset(byEmail, { email: 'ada@example.com', clientIp: '1.1.1.1' });
    const links = byEmail.identity.recoveryLinksMade;
    expect(await requestPasswordReset(byEmail, { email: 'ada@example.com', clientIp: '2.2.2.2' })).toEqual(PASSWORD_RESET_REQUESTED);
    expect(byEmail.mailer.sent).toHaveLength(1);
    // No new link either: the one e-mailed stays the valid one.
    expect(byEmail.identity.recoveryLinksMade).toBe(links);
  });
});

describe('resetting the password', () => {
  it('changes the password in the recovery session and then ends every session', async () => {
    const deps = setup();
    const token = deps.identity.recoverySessionFor(deps.ada, 60);
    const other = deps.identity.sessionFor(deps.ada);
    expect(await resetPassword(deps, { password: 'NewSecret456', token, clientIp: ip })).toMatchObject({ success: true });
    expect(deps.ada.password).toBe('NewSecret456');
    expect(deps.identity.adminPasswordSets).toEqual([]);
    expect(deps.identity.sessions.has(token)).toBe(false);
    expect(deps.identity.sessions.has(other)).toBe(false);
  });

  it('accepts a token once', async () => {
    const deps = setup();
    const token = deps.identity.recoverySessionFor(deps.ada);
    await resetPassword(deps, { password: 'NewSecret456', token, clientIp: ip });
    await expect(resetPassword(deps, { password: 'Another789', token, clientIp: ip })).rejects.toMatchObject({ code: 'invalid_token' });
    expect(deps.ada.password).toBe('NewSecret456');
  });

  it('refuses a token issued more than an hour ago, even one the provider would still take', async () => {
    const deps = setup();
    const token = deps.identity.recoverySessionFor(deps.ada, 3600);
    const error = await resetPassword(deps, { password: 'NewSecret456', token, clientIp: ip }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error.code).toBe('invalid_token');
    expect(deps.ada.password).toBe('Secret123');
    expect(await resetPassword(deps, { password: 'NewSecret456', token: deps.identity.recoverySessionFor(deps.ada, 3599), clientIp: ip })).toMatchObject({
      success: true,
    });
  });

  it("refuses a live login's token with 400 invalid_token: only a recovery link's session may reset", async () => {
    const deps = setup();
    const login = deps.identity.sessionFor(deps.ada);
    const error = await resetPassword(deps, { password: 'NewSecret456', token: login, clientIp: ip }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error.code).toBe('invalid_token');
    expect(deps.ada.password).toBe('Secret123');
    expect(deps.identity.adminPasswordSets).toEqual([]);
    expect(deps.identity.sessions.has(login)).toBe(true);
  });

  it('refuses a missing, malformed or unknown token with 400 invalid_token', async () => {
    const deps = setup();
    const now = Math.floor(Date.now() / 1000);
    const neverIssued = fakeJwt({ sub: deps.ada.id, iat: now, exp: now + 3600, amr: [{ method: 'recovery', timestamp: now }] });
    for (const token of [undefined, 'garbage', neverIssued]) {
      await expect(resetPassword(deps, { password: 'NewSecret456', token, clientIp: ip })).rejects.toMatchObject({ code: 'invalid_token' });
    }
    expect(deps.ada.password).toBe('Secret123');
  });

  it('checks the password rule before looking at the token', async () => {
    const deps = setup();
    deps.identity.failNext = true; // would fail if the provider were asked
    await expect(resetPassword(deps, { password: 'weak', token: 'anything', clientIp: ip })).rejects.toMatchObject({ code: 'weak_password' });
  });

  it('falls back to the admin interface for the user the token names when the direct update fails', async () => {
    const deps = setup();
    deps.identity.directUpdateAnswer = 'failed';
    const token = deps.identity.recoverySessionFor(deps.ada);
    await resetPassword(deps, { password: 'NewSecret456', token, clientIp: ip });
    expect(deps.identity.adminPasswordSets).toEqual([{ userId: deps.ada.id, password: 'NewSecret456' }]);
    expect(deps.log.entries.find((e) => e.level === 'warn')?.fields).toEqual({ userId: deps.ada.id });
    expect(deps.identity.sessions.has(token)).toBe(false);
  });

  it('never acts on a user id the provider did not vouch for', async () => {
    const deps = setup();
    const mallory = deps.identity.addUser('mallory@example.com', 'Secret123');
    const token = deps.identity.recoverySessionFor(mallory);
    const amr = [{ method: 'recovery', timestamp: Math.floor(Date.now() / 1000) }];
    // A token whose claims name Ada, accepted by the provider as Mallory's session.
    const [head, , sig] = token.split('.');
    const claims = Buffer.from(JSON.stringify({ sub: deps.ada.id, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600, amr })).toString('base64url');
    const tampered = `${head}.${claims}.${sig}`;
    deps.identity.sessions.set(tampered, mallory.id);
    deps.identity.directUpdateAnswer = 'failed';
    await expect(resetPassword(deps, { password: 'NewSecret456', token: tampered, clientIp: ip })).rejects.toMatchObject({ code: 'invalid_token' });
    expect(deps.identity.adminPasswordSets).toEqual([]);
    expect(deps.ada.password).toBe('Secret123');
  });

  it('passes on the provider refusing the new password', async () => {
    const deps = setup();
    deps.identity.directUpdateAnswer = 'weak-password';
    await expect(resetPassword(deps, { password: 'NewSecret456', token: deps.identity.recoverySessionFor(deps.ada), clientIp: ip })).rejects.toMatchObject({
      code: 'weak_password',
    });
    await expect(resetPassword(deps, { password: 'Secret123', token: deps.identity.recoverySessionFor(deps.ada), clientIp: ip })).rejects.toMatchObject({
      code: 'weak_password',
    });
  });

  it('refuses the current password as the new one', async () => {
    const deps = setup();
    await expect(resetPassword(deps, { password: 'Secret123', token: deps.identity.recoverySessionFor(deps.ada), clientIp: ip })).rejects.toMatchObject({
      code: 'same_password',
    });
  });

  it('is a server error when the admin fallback fails too', async () => {
    const deps = setup();
    deps.identity.directUpdateAnswer = 'failed';
    const token = deps.identity.recoverySessionFor(deps.ada);
    deps.identity.setPasswordAsAdmin = async () => {
      throw new VendorError('supabase', 'supabase: admin update answered 500', { transient: true, operation: 'admin update' });
    };
    await expect(resetPassword(deps, { password: 'NewSecret456', token, clientIp: ip })).rejects.toBeInstanceOf(VendorError);
    expect(deps.ada.password).toBe('Secret123');
  });

  it('still answers 200 when ending the sessions fails after the change', async () => {
    const deps = setup();
    deps.identity.endSessionsFails = true;
    expect(await resetPassword(deps, { password: 'NewSecret456', token: deps.identity.recoverySessionFor(deps.ada), clientIp: ip })).toMatchObject({ success: true });
    expect(deps.ada.password).toBe('NewSecret456');
    expect(deps.log.entries.some((e) => e.level === 'warn')).toBe(true);
  });

  it('limits attempts per client IP', async () => {
    const deps = setup(withLimits({ resetPassword: { limit: 1, windowSeconds: 900 } }));
    await resetPassword(deps, { password: 'weak', token: 'x', clientIp: ip }).catch(() => undefined);
    await expect(resetPassword(deps, { password: 'NewSecret456', token: deps.identity.recoverySessionFor(deps.ada), clientIp: ip })).rejects.toBeInstanceOf(
      RateLimited,
    );
  });
});
