// The account's member records as the membership webhook keeps them.
import type { MembershipMember } from './membership-state.ts';

export interface MembershipMembers {
  get(accountId: string, email: string): Promise<MembershipMember | undefined>;
  /**
   * Writes the membership part of a member, and the attributes named in
   * `changes`; a new member is created whole. False when the record changed
   * since it was read (another event got there first): read and decide again.
   */
  save(member: MembershipMember, changes: { status?: string; name?: string }, create: boolean): Promise<boolean>;
  /** Notes the onboarding run the member's first payment started. */
  markOnboardingStarted(accountId: string, email: string, runId: string): Promise<void>;
}
