import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;
const MAX_TOKEN_LENGTH = 8192;

/** The token of an `Authorization: Bearer <token>` header; undefined if absent or malformed. */
export function bearerToken(headers: Record<string, string | undefined>): string | undefined {
  const value = headers.authorization;
  if (!value || value.length > MAX_TOKEN_LENGTH + 7) return undefined;
  return BEARER.exec(value)?.[1];
}

/** Compares two secrets in time independent of where they differ (and of their lengths). */
export function secretsEqual(presented: string | undefined, expected: string | undefined): boolean {
  if (!presented || !expected) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
