import { describe, expect, it } from 'vitest';
import { readAccessTokenClaims } from '../../../lib/identity/jwt-claims.ts';

const jwt = (claims: unknown) =>
  ['{"alg":"HS256"}', JSON.stringify(claims), 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.');

describe('reading access-token claims', () => {
  it('reads sub, iat, exp and session_id', () => {
    expect(readAccessTokenClaims(jwt({ sub: 'u-1', iat: 10, exp: 3610, session_id: 's-1', role: 'authenticated' }))).toEqual({
      sub: 'u-1',
      iat: 10,
      exp: 3610,
      sessionId: 's-1',
    });
  });

  it('gives undefined for anything that is not a JWT with those claims', () => {
    for (const token of ['', 'abc', 'a.b', 'a.b.c.d', jwt('just a string'), jwt({ iat: 1, exp: 2 }), jwt({ sub: 'u', exp: 2 }), 'a.%%%.c']) {
      expect(readAccessTokenClaims(token), token).toBeUndefined();
    }
  });
});
