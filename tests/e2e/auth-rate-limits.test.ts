// Rate limits of the auth endpoints, end to end: counted in DynamoDB, so they
// hold across Lambda instances and for concurrent requests. The local stack
// runs the default limits (docs/api.md, "Rate limits"); each test calls from a
// client IP of its own.
import { describe, expect, it } from 'vitest';
import { api, errorCode, randomLoopbackIp, stack, type Reply } from '../support/http.ts';
import { client, followResetLink, mailTo, newEmail, PASSWORD, verifiedUser } from '../support/users.ts';
const limitOf = (setting: string, fallback: string) => Number((stack().env[setting] || fallback).split('/')[0]);

function expectRateLimited(reply: Reply, windowSeconds: number) {
  expect(reply.status).toBe(429);
  expect(errorCode(reply)).toBe('rate_limited');
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('auth rate limits', () => {
  it('repeated signups from one IP reach 429 with Retry-After', async () => {
    const fromIp = randomLoopbackIp();
    const limit = limitOf('RATE_LIMIT_SIGNUP', '5/600');
    for (let i = 0; i < limit; i++) {
      expect((await api('/api/auth/signup', { body: { email: newEmail(), password: 'Secret123' }, fromIp })).status).toBe(201);
    }
    expectRateLimited(await api('/api/auth/signup', { body: { email: newEmail(), password: 'Secret123' }, fromIp }), 600);
    // Another address is not affected.
    expect((await api('/api/auth/signup', { body: { email: newEmail(), password: 'Secret123' }, fromIp: randomLoopbackIp() })).status).toBe(201);
  });

  it('the signup limit holds when the requests arrive at once', async () => {
    const fromIp = randomLoopbackIp();
    const limit = limitOf('RATE_LIMIT_SIGNUP', '5/600');
    const replies = await Promise.all(
      Array.from({ length: limit + 7 }, () => api('/api/auth/signup', { body: { email: newEmail(), password: 'Secret123' }, fromIp })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(limit);
    const refused = replies.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(7);
    for (const r of refused) expectRateLimited(r, 600);
  });

  it('never lets someone else use up an address’s reset requests: past the per-address limit the owner is answered as usual, and the newest link they were sent works', async () => {
    // The attack: a few forgot-password requests for the victim's address, from
    // anywhere, every fifteen minutes, answered the victim's own request with
    // 429: they could never reset their password.
    const { email } = await verifiedUser(client());
    const limit = limitOf('RATE_LIMIT_PER_EMAIL', '3/900');
    for (let i = 0; i < limit; i++) expect((await api('/api/auth/forgot-password', { body: { email }, fromIp: randomLoopbackIp() })).status).toBe(200);
    const own = await api('/api/auth/forgot-password', { body: { email }, fromIp: randomLoopbackIp() });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ success: true, message: expect.any(String) });
    // The mailbox still gets no more than the limit (no mail-bombing), and the newest link in it works.
    expect((await mailTo(email)).filter((m) => m.subject === 'Reset your password')).toHaveLength(limit);
    const link = await followResetLink(email);
    expect((await api('/api/auth/reset-password', { body: { token: link.token, password: 'NewSecret456' }, fromIp: randomLoopbackIp() })).status).toBe(200);
  });

  it('counts toward the per-address signup limit only signups that could register: weak-password attempts by someone else block nothing', async () => {
    const email = newEmail();
    const limit = limitOf('RATE_LIMIT_PER_EMAIL', '3/900');
    for (let i = 0; i < limit + 1; i++) {
      const weak = await api('/api/auth/signup', { body: { email, password: 'x' }, fromIp: randomLoopbackIp() });
      expect(weak.status).toBe(400);
      expect(errorCode(weak)).toBe('weak_password');
    }
    expect((await api('/api/auth/signup', { body: { email, password: 'Secret123' }, fromIp: randomLoopbackIp() })).status).toBe(201);
  });

  it('limits forgot-password per client IP', async () => {
    const fromIp = randomLoopbackIp();
    const limit = limitOf('RATE_LIMIT_FORGOT_PASSWORD', '5/900');
    for (let i = 0; i < limit; i++) expect((await api('/api/auth/forgot-password', { body: { email: newEmail() }, fromIp })).status).toBe(200);
    expectRateLimited(await api('/api/auth/forgot-password', { body: { email: newEmail() }, fromIp }), 900);
  });

  it('limits login attempts per client IP, against credential stuffing', async () => {
    const fromIp = randomLoopbackIp();
    const limit = limitOf('RATE_LIMIT_LOGIN', '10/300');
    const replies = await Promise.all(
      Array.from({ length: limit + 3 }, () => api('/api/auth/login', { body: { email: newEmail(), password: 'Wrong1234' }, fromIp })),
    );
    expect(replies.filter((r) => r.status === 401)).toHaveLength(limit);
    for (const r of replies.filter((r) => r.status !== 401)) expectRateLimited(r, 300);
  });

  it('pauses sign-ins of an address after its failed logins from any number of IPs, answering as for a wrong password whether or not the address has an account', async () => {
    // The attack: 25 source addresses, one wrong password each, then the right one: 200.
    const { email } = await verifiedUser(client());
    const unknown = newEmail();
    const login = (address: string, password: string) => api('/api/auth/login', { body: { email: address, password }, fromIp: randomLoopbackIp() });
    for (let i = 0; i < 25; i++) {
      const [known, stranger] = await Promise.all([login(email, 'Wrong1234'), login(unknown, 'Wrong1234')]);
      expect([known.status, errorCode(known), stranger.status, errorCode(stranger)], `attempt ${i + 1}`).toEqual([401, 'invalid_credentials', 401, 'invalid_credentials']);
    }
    const right = await login(email, PASSWORD);
    const guessed = await login(unknown, PASSWORD);
    expect(right.status).toBe(401);
    // Nothing in the answer tells the registered address from the unknown one.
    expect({ status: right.status, error: right.body.error, retryAfter: right.headers.get('retry-after') }).toEqual({
      status: guessed.status,
      error: guessed.body.error,
      retryAfter: guessed.headers.get('retry-after'),
    });
    expect(right.body.error).toEqual({ code: 'invalid_credentials', message: 'The e-mail address or password is wrong' });
    // The address's mailbox is told, once.
    expect((await mailTo(email)).filter((m) => m.subject === 'Too many failed sign-ins')).toHaveLength(1);
  });

  it('limits reset-password attempts per client IP', async () => {
    const fromIp = randomLoopbackIp();
    const limit = limitOf('RATE_LIMIT_RESET_PASSWORD', '5/900');
    for (let i = 0; i < limit; i++) {
      expect((await api('/api/auth/reset-password', { body: { token: 'guess', password: 'NewSecret456' }, fromIp })).status).toBe(400);
    }
    expectRateLimited(await api('/api/auth/reset-password', { body: { token: 'guess', password: 'NewSecret456' }, fromIp }), 900);
  });
});
