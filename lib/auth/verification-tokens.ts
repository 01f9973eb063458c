// E-mail verification tokens: random, single use, with an expiry. The token
// travels only in the e-mailed link; the store keeps its SHA-256, so a copy of
// the table cannot verify anyone.
import { createHash, randomBytes } from 'node:crypto';

export interface VerificationRecord {
  tokenHash: string;
  userId: string;
  email: string;
  /** What the signup said, for creating the account on verification. */
  companyName?: string;
  name?: string;
  createdAt: string;
  /** Epoch seconds. */
  expiresAt: number;
}

export interface ConsumedVerification extends VerificationRecord {
  /** When it was consumed; restoring it needs this. */
  usedAt: string;
}

export interface VerificationTokenStore {
  save(record: VerificationRecord): Promise<void>;
  /**
   * Marks the token used if it exists, is unused and has not expired at `now`,
   * in one conditional write: of any number of concurrent attempts, one gets
   * the record, the others undefined (as do wrong, used and expired tokens).
   */
  consume(tokenHash: string, now: Date): Promise<ConsumedVerification | undefined>;
  /** Makes a consumed token usable again, when what it was consumed for failed. */
  restore(consumed: ConsumedVerification): Promise<void>;
  /**
   * Voids every link issued to this user up to `at`: a later signup contested
   * the unconfirmed registration (sign-up.ts). Kept until `until` (epoch
   * seconds), by when those links have expired anyway. A later time replaces
   * an earlier one, never the other way round.
   */
  voidLinksOf(userId: string, at: Date, until: number): Promise<void>;
  /** Whether the link was issued no later than the last voiding of its user's links. */
  isVoided(record: Pick<VerificationRecord, 'userId' | 'createdAt'>): Promise<boolean>;
}

/** 24 random bytes: 192 bits, 32 URL-safe characters. */
export const newVerificationToken = () => randomBytes(24).toString('base64url');

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
