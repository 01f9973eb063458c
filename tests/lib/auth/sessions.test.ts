// logIn, logOut and currentUser against in-memory fakes of their ports.
import { describe, expect, it } from 'vitest';
import { logIn } from '../../../lib/auth/log-in.ts';
import { logOut } from '../../../lib/auth/log-out.ts';
import { Forbidden, RateLimited, Unauthenticated } from '../../../lib/errors.ts';
import { FakeIdentity, MemoryRateLimiter, settings, withLimits } from './fakes.ts';

const ip = '198.51.100.9';

function setup(limits = settings) {
  const identity = new FakeIdentity();
  identity.addUser('ada@example.com', 'Secret123', true, { companyName: 'Acme' });
  identity.addUser('pending@example.com', 'Secret123', false);
  return { identity, limiter: new MemoryRateLimiter(), settings: limits };
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
