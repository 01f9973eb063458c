import { describe, expect, it } from 'vitest';
import { openedByRecovery, readAccessTokenClaims } from '../../../lib/identity/jwt-claims.ts';

const jwt = (claims: unknown) =>
  ['{"alg":"HS256"}', JSON.stringify(claims), 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.');

describe('reading access-token claims', () => {
  it('reads sub, iat, exp and session_id', () => {
    expect(readAccessTokenClaims(jwt({ sub: 'u-1', iat: 10, exp: 3610, session_id: 's-1', role: 'authenticated' }))).toEqual({
      sub: 'u-1',
      iat: 10,
      exp: 3610,
      sessionId: 's-1',
      authMethods: [],
    });
  });

  it('reads the methods of the amr claim, in GoTrue\'s shape and as plain strings, and tells a recovery session from a login', () => {
    const claims = (amr: unknown) => readAccessTokenClaims(jwt({ sub: 'u', iat: 1, exp: 2, amr }))!;
    expect(claims([{ method: 'recovery', timestamp: 1 }]).authMethods).toEqual(['recovery']);
    expect(claims(['otp']).authMethods).toEqual(['otp']);
    expect(claims('recovery').authMethods).toEqual([]);
    expect(claims([{ timestamp: 1 }, 7, null]).authMethods).toEqual([]);
    expect(openedByRecovery(claims([{ method: 'recovery', timestamp: 1 }]))).toBe(true);
    expect(openedByRecovery(claims([{ method: 'otp', timestamp: 1 }]))).toBe(true);
    for (const amr of [[{ method: 'password', timestamp: 1 }], [{ method: 'magiclink', timestamp: 1 }], [{ method: 'email/signup', timestamp: 1 }], undefined]) {
      expect(openedByRecovery(claims(amr)), JSON.stringify(amr)).toBe(false);
    }
  });

  it('reads when a recovery link opened the session from its amr entry, not from iat: the latest recovery entry with a time', () => {
    const claims = (amr: unknown) => readAccessTokenClaims(jwt({ sub: 'u', iat: 5000, exp: 8600, amr }))!;
    expect(claims([{ method: 'otp', timestamp: 1000 }]).recoveryOpenedAt).toBe(1000);
    expect(claims([{ method: 'recovery', timestamp: 1200 }, { method: 'password', timestamp: 4000 }, { method: 'otp', timestamp: 900 }]).recoveryOpenedAt).toBe(1200);
    for (const amr of [[{ method: 'password', timestamp: 1000 }], ['otp'], [{ method: 'otp' }], [{ method: 'otp', timestamp: '1000' }], undefined]) {
      expect(claims(amr).recoveryOpenedAt, JSON.stringify(amr)).toBeUndefined();
    }
  });

  it('gives undefined for a token supabase-js would throw on before asking the provider: a header or payload that is no JSON object or no UTF-8, a segment of a length no bytes have', () => {
    const [, payload, signature] = jwt({ sub: 'u', iat: 1, exp: 2, amr: ['recovery'] }).split('.');
    const segment = (bytes: string | Buffer) => Buffer.from(bytes).toString('base64url');
    for (const header of [segment('abc'), segment('"HS256"'), segment('[1]'), segment(Buffer.from([0x7b, 0xff, 0x7d])), `${segment('{}')}AA`]) {
      expect(readAccessTokenClaims(`${header}.${payload}.${signature}`), header).toBeUndefined();
    }
    expect(readAccessTokenClaims(`${segment('{"alg":"HS256"}')}.${segment(Buffer.concat([Buffer.from('{"sub":"u'), Buffer.from([0xc3]), Buffer.from('","iat":1,"exp":2}')]))}.${signature}`)).toBeUndefined();
    expect(readAccessTokenClaims(`${segment('{"alg":"HS256"}')}.${payload}.`)).toBeUndefined();
  });

  it('gives undefined for anything that is not a JWT with those claims', () => {
    for (const token of ['', 'abc', 'a.b', 'a.b.c.d', jwt('just a string'), jwt({ iat: 1, exp: 2 }), jwt({ sub: 'u', exp: 2 }), 'a.%%%.c']) {
      expect(readAccessTokenClaims(token), token).toBeUndefined();
    }
  });
});
