// Account and member records, and the ports that keep them. DynamoDB
// attribute names follow the contract (portal_slug, storage_link, ...).
// A member record (the contract's `members` table, kept per account and
// address) is the person an onboarding was for, or a person a membership
// provider synced: a record, not a right. Who may act on an account is decided
// by memberships (memberships.ts). Each account has its own record of a
// person: what one account writes about an address never reaches another's.

import { Unavailable } from '../errors.ts';

/**
 * An account's life cycle (lifecycle.ts): provisioning → active (or needs_attention)
 * → offboarding → closed → erased; reopening a closed account provisions it again.
 */
export type AccountStatus = 'provisioning' | 'active' | 'needs_attention' | 'offboarding' | 'closed' | 'erased';
/** What started an offboarding: someone asking (its owner, an admin), or the end of the subscription. */
export type OffboardingTrigger = 'request' | 'subscription';

/** The client leaving, as the account records it: the run that takes back what onboarding gave, and why (lib/offboarding/). */
export interface Offboarding {
  run_id: string;
  trigger: OffboardingTrigger;
  reason: string;
  /** Who asked: a user id, `admin-key`, or `stripe` for a subscription's end. */
  requested_by: string;
  requested_at: string;
  /** When the run begins taking back (ISO): the end of the grace period, or the request itself. */
  not_before: string;
}

export type MemberStatus = 'provisioning' | 'active' | 'needs_attention' | 'removed';

export interface Account {
  id: string;
  status: AccountStatus;
  company_name?: string;
  company_url?: string;
  company_domain?: string;
  contact_email?: string;
  phone?: string;
  location?: string;
  timezone?: string;
  /** The plan the client is billed for; set only from payments (lib/payments/billing.ts). */
  plan?: string;
  /** The plan the client named on the onboarding form: informative, never billing. */
  requested_plan?: string;
  metadata?: Record<string, unknown>;
  portal_slug?: string;
  dashboard_slug?: string;
  /** The identity-provider user who created it (its first owner). */
  created_by?: string;
  /** How many active owners it has: kept by the membership store, so the last one can never go (memberships.ts). */
  owner_count?: number;
  /** The client's storage folder and its shared link, once provisioned. */
  storage_path?: string;
  storage_link?: string;
  /** The latest onboarding run started for it. */
  onboarding_run_id?: string;
  /** The latest offboarding, waiting for its grace period, running, or done. */
  offboarding?: Offboarding;
  closed_at?: string;
  reopened_at?: string;
  /** Once erased, all that is left: when, by whom, and what was erased where (no personal data). */
  erasure?: ErasureRecord;
  stripe_customer_id?: string;
  subscription_id?: string;
  subscription_status?: string;
  /** Compare-and-set version of the billing fields above (lib/payments/billing.ts). */
  billing_version?: number;
  /** `created` (epoch seconds) of the newest payment event applied, and the ids of the latest ones. */
  billing_event_at?: number;
  billing_events?: string[];
  created_at: string;
  updated_at: string;
}

/** What an erasure did, per place: our tables and each vendor that held the account's personal data. */
export interface ErasureRecord {
  erased_at?: string;
  requested_by: string;
  requested_at: string;
  /** Per place (a table, or a vendor): what happened there, e.g. "3 contacts deleted", "kept: e-mail suppression". */
  places: Record<string, { outcome: 'erased' | 'kept' | 'skipped' | 'failed'; detail: string }>;
}

export interface Member {
  email: string;
  account_id: string;
  status: MemberStatus;
  role: 'owner' | 'member';
  name?: string;
  user_id?: string;
  storage_link?: string;
  storage_path?: string;
  storage_created_at?: string;
  created_at: string;
  updated_at: string;
}

/** Contact and company details, as the latest submission gives them (undefined: leave as is). */
export type AccountDetails = Partial<
  Pick<
    Account,
    | 'company_name'
    | 'company_url'
    | 'company_domain'
    | 'contact_email'
    | 'phone'
    | 'location'
    | 'timezone'
    | 'requested_plan'
    | 'metadata'
    | 'created_by'
    | 'storage_path'
    | 'storage_link'
    | 'onboarding_run_id'
  >
>;

export interface NewMember {
  email: string;
  account_id: string;
  role: Member['role'];
  name?: string;
  user_id?: string;
}

export interface AccountStore {
  getAccount(id: string): Promise<Account | undefined>;
  getMember(accountId: string, email: string): Promise<Member | undefined>;
  /** Creates the account's record of the person unless it has one; answers with the record it has. */
  claimMember(member: NewMember): Promise<{ member: Member; created: boolean }>;
  /** Creates the account (status provisioning) when missing, and sets the given details. */
  saveAccountDetails(id: string, details: AccountDetails): Promise<Account>;
  /** Sets the portal (and dashboard) slug unless the account has one; answers with the slug it has. */
  setPortalSlugOnce(accountId: string, slug: string): Promise<string>;
  setMemberStatusForAccount(accountId: string, status: MemberStatus): Promise<void>;
  /** Records the client's storage folder on the member; storage_created_at keeps its first value. */
  setMemberStorage(accountId: string, email: string, storage: { link: string; path: string; createdAt: string }): Promise<void>;
  /** Every member of an account. */
  membersOf(accountId: string): Promise<Member[]>;
}

export interface SlugRegistry {
  /** Reserves the slug for the account: true when it is now, or already was, this account's. */
  reserve(slug: string, accountId: string): Promise<boolean>;
  /** Gives a slug back, if this account holds it. */
  release(slug: string, accountId: string): Promise<void>;
}

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * The answer while an upgraded stage copies its member records into their
 * per-account table (config.ts memberRecordsCopying): the same request is
 * taken once the copy is done. A membership provider delivers again by itself
 * (Svix: after 5 s, 5 min, 30 min, ...).
 */
export const heldForCopy = () =>
  new Unavailable('Member records are being moved to a new table; send this again in a few minutes', 'member_records_copying', 300);
