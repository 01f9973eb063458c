import { describe, expect, it } from 'vitest';
import { assertPasswordAcceptable, passwordProblems } from '../../../lib/auth/password-policy.ts';

describe('the password rule', () => {
  it('accepts 8+ characters with upper case, lower case and a digit, up to 72 bytes', () => {
    for (const ok of ['Secret12', 'Ünïcode9x', `Aa1${'x'.repeat(69)}`]) expect(passwordProblems(ok), ok).toEqual([]);
  });

  it('names each broken rule', () => {
    expect(passwordProblems('Sh0rt')).toEqual(['must have at least 8 characters']);
    expect(passwordProblems('lowercase123')).toEqual(['must contain an upper-case letter']);
    expect(passwordProblems('UPPERCASE123')).toEqual(['must contain a lower-case letter']);
    expect(passwordProblems('NoDigitsHere')).toEqual(['must contain a digit']);
    expect(passwordProblems('')).toHaveLength(4);
  });

  it('refuses what bcrypt would silently cut at 72 bytes, counting bytes, not characters', () => {
    expect(passwordProblems(`Aa1${'x'.repeat(70)}`)).toEqual(['must be at most 72 bytes long']);
    const multiByte = `Aa1${'é'.repeat(35)}`; // 38 characters, 73 bytes
    expect(multiByte.length).toBeLessThan(72);
    expect(passwordProblems(multiByte)).toEqual(['must be at most 72 bytes long']);
  });

  it('throws 400 weak_password with one detail per rule, never echoing the password', () => {
    const error = (() => {
      try {
        assertPasswordAcceptable('weakpass');
      } catch (e) {
        return e as { code: string; details: { path: string; message: string }[]; message: string };
      }
    })();
    expect(error?.code).toBe('weak_password');
    expect(error?.details).toEqual([
      { path: '/body/password', message: 'must contain an upper-case letter' },
      { path: '/body/password', message: 'must contain a digit' },
    ]);
    expect(JSON.stringify(error)).not.toContain('weakpass');
  });
});
