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
  accepted_by?: string;
  accepted_at?: string;
  revoked_at?: string;
  revoked_by?: string;
}

export interface InvitationStore {
  create(invitation: Invitation): Promise<void>;
  get(id: string): Promise<Invitation | undefined>;
  ofAccount(accountId: string): Promise<Invitation[]>;
  /** Every invitation ever sent to this (lower-case) address. */
  toEmail(email: string): Promise<Invitation[]>;
  /** Marks a pending, unexpired invitation accepted by the user; false when it no longer is one (used, revoked, lapsed). */
  accept(id: string, userId: string, now: Date): Promise<boolean>;
  /** Marks a pending invitation revoked; false when it is not pending. */
  revoke(id: string, by: string, now: Date): Promise<boolean>;
}

export const isOpen = (invitation: Invitation, now: Date) =>
  invitation.status === 'pending' && invitation.expires_at > Math.floor(now.getTime() / 1000);
