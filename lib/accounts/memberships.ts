// Who belongs to an account, and as what. A membership joins an identity-
// provider user (by id, never by e-mail alone) to an account with a role; it
// comes into being only when the person creates the account or accepts an
// invitation to it (lib/accounts/team.ts), so nobody is made a member of an
// account by what someone else typed. Every access rule of the API reads
// memberships (lib/access/permission-guard.ts).
//
// The member records (accounts.ts, table `account_members`) are a different
// thing: each account's record of the person an onboarding was for (status,
// storage link) and of people a membership provider syncs. They grant nothing.
import type { Role } from '../permissions.ts';

export type MembershipStatus = 'active' | 'removed';

export interface Membership {
  account_id: string;
  user_id: string;
  /** The verified address the person joined with (for lists, and to match provider syncs). */
  email: string;
  role: Role;
  status: MembershipStatus;
  /** How the person came in. */
  joined_via: 'created' | 'invitation' | 'migration';
  invitation_id?: string;
  joined_at: string;
  updated_at: string;
}

export interface NewMembership {
  accountId: string;
  userId: string;
  email: string;
  role: Role;
  via: Membership['joined_via'];
  invitationId?: string;
}

/** What became of a role change or removal. */
export type SeatChange = 'changed' | 'last-owner' | 'not-member' | 'moved-meanwhile';

/**
 * The store keeps one invariant itself: an account that has an owner never
 * loses its last one. It counts owners on the account row and takes an owner
 * seat away only with a conditional write (`owner_count > 1`), so two owners
 * demoting each other at once cannot both succeed.
 */
export interface MembershipStore {
  get(accountId: string, userId: string): Promise<Membership | undefined>;
  /** The user's memberships, active or removed. */
  ofUser(userId: string): Promise<Membership[]>;
  /** The account's memberships, active or removed. */
  ofAccount(accountId: string): Promise<Membership[]>;
  /** Memberships joined with this (lower-case) address, in any account. */
  ofEmail(email: string): Promise<Membership[]>;
  /**
   * Makes the user an active member with the role; an active member keeps
   * their membership as it is (answers joined: false), a removed one is
   * taken back in.
   */
  join(membership: NewMembership): Promise<{ membership: Membership; joined: boolean }>;
  /** Changes an active member's role, if it is still `from`. */
  setRole(accountId: string, userId: string, from: Role, to: Role): Promise<SeatChange>;
  /** Ends an active membership whose role is still `role`. */
  remove(accountId: string, userId: string, role: Role): Promise<SeatChange>;
}

export const activeOnly = (memberships: Membership[]) => memberships.filter((m) => m.status === 'active');

/** The active owner memberships among these, oldest first: the accounts an address (or a user) owns. */
export const ownerships = (memberships: Membership[]) =>
  activeOnly(memberships)
    .filter((m) => m.role === 'owner')
    .sort((a, b) => a.joined_at.localeCompare(b.joined_at));
