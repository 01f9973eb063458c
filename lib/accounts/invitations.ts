// An invitation asks one e-mail address to join one account with a role. It
// is the only way into an account someone else created: the invitee accepts
// it signed in, with that very address verified (lib/accounts/team.ts). It is
// single use, lapses after INVITATION_TTL_DAYS, can be revoked, and records
// who invited whom to what.
import type { Role } from '../permissions.ts';

export const INVITATION_TTL_DAYS = 7;

export type InvitationStatus = 'pending' | 'accepted' | 'revoked';

/** Who asked: a member, the internal service (onboarding by API key), a membership-provider sync, a public checkout, or the migration. */
export type Inviter =
  | { kind: 'user'; userId: string; email: string }
  | { kind: 'service' }
  | { kind: 'membership-sync'; provider: string; memberId: string }
  | { kind: 'checkout' }
  | { kind: 'migration' };

export interface Invitation {
  id: string;
  account_id: string;
  /** Lower case. */
  email: string;
  role: Role;
  status: InvitationStatus;
  invited_by: Inviter;
  created_at: string;
  /** Epoch seconds; past it a pending invitation can no longer be accepted. */
  expires_at: number;
  /**
   * Its e-mail, where that is not sent at once: `due` for the onboarding run to send, `sent` once it has;
   * `held` when it was past the invitation limit (it waits for the invitee to sign in).
   */
  mail?: 'due' | 'sent' | 'held';
  mailed_at?: string;
  accepted_by?: string;
  accepted_at?: string;
  revoked_at?: string;
  revoked_by?: string;
}

/**
 * How opening an invitation went: `opened`; `pending`, another is open to the
 * address (or being written); `barred`, the account decided against the
 * person and the caller (a sync) asked to respect that; `closed`, the person
 * was removed while it was written, so it was revoked at once.
 */
export type Opening = 'opened' | 'pending' | 'barred' | 'closed';

export interface InvitationStore {
  /**
   * Writes the invitation as the one open invitation of its address to its
   * account: of any number of concurrent calls for one address, one opens.
   * `unlessBarred`: not for a person the account removed, or whose
   * invitation it revoked (syncs ask this).
   */
  open(invitation: Invitation, options?: { unlessBarred?: boolean }): Promise<Opening>;
  get(id: string): Promise<Invitation | undefined>;
  ofAccount(accountId: string): Promise<Invitation[]>;
  /** Every invitation ever sent to this (lower-case) address. */
  toEmail(email: string): Promise<Invitation[]>;
  /** Marks a pending, unexpired invitation accepted by the user; false when it no longer is one (used, revoked, lapsed). */
  accept(id: string, userId: string, now: Date): Promise<boolean>;
  /**
   * Marks a pending invitation revoked; false when it is not pending. `bar`: the account's own
   * decision about the person, which no sync undoes (an owner or admin revoking it).
   */
  revoke(id: string, by: string, now: Date, options?: { bar?: boolean }): Promise<boolean>;
  /**
   * The account's decision that the person at this address is out (removed, or left): every
   * open invitation to the address is revoked, also one being written at this moment, and no
   * sync opens another (owners and admins still may).
   */
  closeTo(accountId: string, email: string, by: string, now: Date): Promise<void>;
  /** Records that the invitation's e-mail was sent. */
  markSent(id: string, at: Date): Promise<void>;
}

export const isOpen = (invitation: Invitation, now: Date) =>
  invitation.status === 'pending' && invitation.expires_at > Math.floor(now.getTime() / 1000);
