// The password rule of signup and reset-password: at least 8 characters with
// upper case, lower case and a digit, and at most 72 bytes, because the
// provider hashes with bcrypt, which ignores every byte after the 72nd: a longer
// password would silently be only as strong as its first 72 bytes.
import { InvalidInput, type ErrorDetail } from '../errors.ts';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_BYTES = 72;

export const PASSWORD_RULE =
  `At least ${PASSWORD_MIN_LENGTH} characters, with an upper-case letter, a lower-case letter and a digit; ` +
  `at most ${PASSWORD_MAX_BYTES} bytes in UTF-8`;

/** What is wrong with a password; empty when it is acceptable. Never echoes the password. */
export function passwordProblems(password: string): string[] {
  const problems: string[] = [];
  if ([...password].length < PASSWORD_MIN_LENGTH) problems.push(`must have at least ${PASSWORD_MIN_LENGTH} characters`);
  if (!/\p{Lu}/u.test(password)) problems.push('must contain an upper-case letter');
  if (!/\p{Ll}/u.test(password)) problems.push('must contain a lower-case letter');
  if (!/\p{Nd}/u.test(password)) problems.push('must contain a digit');
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) problems.push(`must be at most ${PASSWORD_MAX_BYTES} bytes long`);
  return problems;
}

/** Throws 400 weak_password, one detail per broken rule, unless the password is acceptable. */
export function assertPasswordAcceptable(password: string, path = '/body/password'): void {
  const problems = passwordProblems(password);
  if (problems.length === 0) return;
  const details: ErrorDetail[] = problems.map((message) => ({ path, message }));
  throw new InvalidInput('The password does not meet the password rules', details, 'weak_password');
}

/** 400 weak_password for a password our rule accepted but the identity provider's own rules refused. */
export const passwordRefusedByProvider = () =>
  new InvalidInput('The identity provider refused this password as too weak', [{ path: '/body/password', message: 'is too weak' }], 'weak_password');
