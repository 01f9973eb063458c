// logIn, logOut and currentUser against in-memory fakes of their ports.
import { describe, expect, it } from 'vitest';
import { logIn } from '../../../lib/auth/log-in.ts';
import { logOut } from '../../../lib/auth/log-out.ts';
import { Forbidden, RateLimited, Unauthenticated } from '../../../lib/errors.ts';
import { FakeIdentity, MemoryRateLimiter, settings, withLimits } from '../../support/auth-fakes.ts';
import { fakeMailer, recordingLogger } from '../../support/fakes.ts';

const ip = '198.51.100.9';

function setup(limits = settings) {
  const identity = new FakeIdentity();
  identity.addUser('ada@example.com', 'Secret123', true, { companyName: 'Acme' });
  identity.addUser('pending@example.com', 'Secret123', false);
  return { identity, limiter: new MemoryRateLimiter(), settings: limits, mailer: fakeMailer(), log: recordingLogger() };
}

describe('logging in', () => {
  it('answers the session and the user', async () => {
    const deps = setup();
    const result = await logIn(deps, { email: ' Ada@Example.com', password: 'Secret123', clientIp: ip });
    expect(result.session).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 3600 });
    expect(result.user).toMatchObject({ email: 'ada@example.com', email_confirmed: true, metadata: { companyName: 'Acme' } });
  });

  it('answers a wrong password and an unknown address with the same 401', async () => {
    const deps = setup();
    const wrong = await logIn(deps, { email: 'ada@example.com', password: 'Wrong1234', clientIp: ip }).catch((e) => e);
    const unknown = await logIn(deps, { email: 'nobody@example.com', password: 'Secret123', clientIp: ip }).catch((e) => e);
    expect(wrong).toBeInstanceOf(Unauthenticated);
    expect(wrong.code).toBe('invalid_credentials');
    expect({ code: unknown.code, message: unknown.message }).toEqual({ code: wrong.code, message: wrong.message });
  });

  it('answers 403 for an unverified address', async () => {
    const error = await logIn(setup(), { email: 'pending@example.com', password: 'Secret123', clientIp: ip }).catch((e) => e);
    expect(error).toBeInstanceOf(Forbidden);
    expect(error.code).toBe('email_not_confirmed');
  });

  it('limits attempts per client IP, failed or not', async () => {
    const deps = setup(withLimits({ login: { limit: 2, windowSeconds: 300 } }));
    await logIn(deps, { email: 'ada@example.com', password: 'Wrong1234', clientIp: ip }).catch(() => undefined);
    await logIn(deps, { email: 'ada@example.com', password: 'Secret123', clientIp: ip });
    await expect(logIn(deps, { email: 'ada@example.com', password: 'Secret123', clientIp: ip })).rejects.toMatchObject({
      retryAfterSeconds: 300,
    });
    await expect(logIn(deps, { email: 'ada@example.com', password: 'Secret123', clientIp: ip })).rejects.toBeInstanceOf(RateLimited);
  });
});

describe('failed logins of one address, from any number of IPs', () => {
  it('pause its sign-ins past the limit: answered as a wrong password, the right one included, alike for an address without an account; the mailbox is told once', async () => {
    const deps = setup(withLimits({ loginFailures: { limit: 3, windowSeconds: 900 } }));
    const from = (n: number) => `198.51.100.${n}`;
    const attempt = (email: string, password: string, n: number) => logIn(deps, { email, password, clientIp: from(n) }).catch((e: Error) => e);
    for (let n = 0; n < 3; n++) {
      expect(await attempt('ada@example.com', 'Wrong1234', n)).toMatchObject({ code: 'invalid_credentials' });
      expect(await attempt('nobody@example.com', 'Wrong1234', n)).toMatchObject({ code: 'invalid_credentials' });
    }
    const known = (await attempt('Ada@Example.com', 'Secret123', 9)) as Unauthenticated;
    const unknown = (await attempt('nobody@example.com', 'Secret123', 9)) as Unauthenticated;
    expect(known).toBeInstanceOf(Unauthenticated);
    expect({ code: known.code, message: known.message }).toEqual({ code: unknown.code, message: unknown.message });
    // The identity provider was not asked once the limit was reached.
    expect(deps.identity.signInCalls).toBe(6);
    // Each mailbox is told once, when its failures filled the window.
    expect(deps.mailer.sent.map((m) => [m.to, m.subject])).toEqual([
      ['ada@example.com', 'Too many failed sign-ins'],
      ['nobody@example.com', 'Too many failed sign-ins'],
    ]);
    expect(deps.mailer.sent[0]!.text).toContain('https://portal.test/forgot-password');
    // Another address is not affected.
    deps.identity.addUser('bo@example.com', 'Secret123', true);
    expect(await logIn(deps, { email: 'bo@example.com', password: 'Secret123', clientIp: from(9) })).toMatchObject({ user: { email: 'bo@example.com' } });
  });

  it('are not counted when the password is right, and a notice that cannot be sent changes no answer', async () => {
    const deps = setup(withLimits({ loginFailures: { limit: 1, windowSeconds: 900 } }));
    await logIn(deps, { email: 'ada@example.com', password: 'Secret123', clientIp: ip });
    await logIn(deps, { email: 'ada@example.com', password: 'Secret123', clientIp: ip });
    deps.mailer.failing = true;
    await expect(logIn(deps, { email: 'ada@example.com', password: 'Wrong1234', clientIp: ip })).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect(deps.log.entries.map((e) => e.level)).toEqual(['warn']);
    await expect(logIn(deps, { email: 'ada@example.com', password: 'Secret123', clientIp: ip })).rejects.toMatchObject({ code: 'invalid_credentials' });
  });
});

describe('logging out', () => {
  it('ends the sessions, after which the same token is no longer a user', async () => {
    const deps = setup();
    const token = deps.identity.sessionFor(deps.identity.users[0]!);
    const other = deps.identity.sessionFor(deps.identity.users[0]!);
    expect(await logOut(deps, token)).toEqual({ success: true, message: 'Signed out' });
    expect(await deps.identity.userForAccessToken(token)).toBeUndefined();
    expect(await deps.identity.userForAccessToken(other)).toBeUndefined();
  });

  it('is 401 without a token, or with one that no longer works', async () => {
    const deps = setup();
    await expect(logOut(deps, undefined)).rejects.toBeInstanceOf(Unauthenticated);
    const token = deps.identity.sessionFor(deps.identity.users[0]!);
    await logOut(deps, token);
    await expect(logOut(deps, token)).rejects.toBeInstanceOf(Unauthenticated);
  });
});
