// How a membership event changes a member record: a pure function of the record
// as read and the event, applied by the store with an optimistic version check.
// - The record is the account's own; another account's record of the person is never read.
// - Out of order: each part keeps the firing time of the event that last set it
//   (profile, deletion, each plan connection); an older event never overwrites a newer.
// - "Paying": an ACTIVE or TRIALING plan connection that is not FREE, of a member not deleted.
// - A deleted membership marks a plain member removed; an owner keeps their status.
import type { Member, MemberStatus } from '../accounts/accounts.ts';
import { stableJson } from '../stable-json.ts';
import type { CustomFields, MembershipEvent, PlanConnection } from './membership-events.ts';

export interface PlanState {
  plan_id?: string;
  status?: string;
  type?: string;
  active: boolean;
  /** Firing time (epoch ms) of the event that last set it. */
  at: number;
}

/** Stored on the member record as `membership`. */
export interface MembershipRecord {
  provider: 'memberstack';
  member_id: string;
  status: 'active' | 'deleted';
  profile_at?: number;
  deleted_at?: number;
  custom_fields?: CustomFields;
  plans: Record<string, PlanState>;
  paying: boolean;
  /** The onboarding run this member's first payment started (set once). */
  onboarding_run?: string;
}

export type MembershipMember = Pick<Member, 'email' | 'account_id' | 'role' | 'status' | 'name'> & {
  membership?: MembershipRecord;
  /** Bumped by every membership write; the optimistic lock of the next one. */
  membership_version?: number;
};

export type MembershipDecision =
  | { kind: 'unknown-member' }
  | { kind: 'unchanged'; member: MembershipMember }
  | {
      kind: 'save';
      create: boolean;
      member: MembershipMember;
      /** Member attributes besides `membership` that change (only these are written). */
      changes: { status?: MemberStatus; name?: string };
    };

const PAYING_STATUSES = new Set(['ACTIVE', 'TRIALING']);

export const isPayingPlan = (plan: PlanState) =>
  plan.active && (plan.status === undefined || PAYING_STATUSES.has(plan.status)) && plan.type !== 'FREE';

export function decideMembership(current: MembershipMember | undefined, accountId: string, email: string, event: MembershipEvent): MembershipDecision {
  if (!current && event.type === 'member.deleted') return { kind: 'unknown-member' };

  const before: MembershipRecord = current?.membership ?? { provider: 'memberstack', member_id: event.memberId, status: 'active', plans: {}, paying: false };
  const next: MembershipRecord = structuredClone(before);
  next.member_id = event.memberId;
  const changes: { status?: MemberStatus; name?: string } = {};

  const revive = () => {
    if (next.status === 'deleted' && event.at >= (next.deleted_at ?? 0)) next.status = 'active';
  };

  switch (event.type) {
    case 'member.created':
    case 'member.updated':
      if (event.at >= (next.profile_at ?? 0)) {
        next.profile_at = event.at;
        next.custom_fields = event.customFields;
        if (event.name && event.name !== current?.name) changes.name = event.name;
        revive();
      }
      for (const plan of event.plans ?? []) mergePlan(next, plan, event.at);
      break;
    case 'member.deleted':
      if (event.at >= (next.deleted_at ?? 0) && event.at >= (next.profile_at ?? 0)) {
        next.status = 'deleted';
        next.deleted_at = event.at;
      }
      break;
    default:
      mergePlan(next, event.type === 'member.plan.canceled' ? { ...event.plan, active: false, status: event.plan.status ?? 'CANCELED' } : event.plan, event.at);
      revive();
  }
  next.paying = next.status === 'active' && Object.values(next.plans).some(isPayingPlan);

  const status = statusFor(current, next);
  if (status !== (current?.status ?? undefined)) changes.status = status;

  const member: MembershipMember = {
    email,
    account_id: accountId,
    role: current?.role ?? 'member',
    status,
    ...(changes.name ?? current?.name ? { name: changes.name ?? current?.name } : {}),
    membership: next,
    ...(current?.membership_version !== undefined ? { membership_version: current.membership_version } : {}),
  };
  if (current && !changes.status && !changes.name && stableJson(before) === stableJson(next) && current.membership) {
    return { kind: 'unchanged', member };
  }
  return { kind: 'save', create: !current, member, changes };
}

function mergePlan(record: MembershipRecord, plan: PlanConnection, at: number) {
  const known = Object.hasOwn(record.plans, plan.id) ? record.plans[plan.id] : undefined;
  if (known && known.at > at) return;
  record.plans[plan.id] = {
    ...(plan.planId ? { plan_id: plan.planId } : {}),
    ...(plan.status ? { status: plan.status } : {}),
    ...(plan.type ? { type: plan.type } : {}),
    active: plan.active,
    at,
  };
}

function statusFor(current: MembershipMember | undefined, next: MembershipRecord): MemberStatus {
  const role = current?.role ?? 'member';
  if (next.status === 'deleted') return role === 'owner' ? (current?.status ?? 'active') : 'removed';
  if (!current || current.status === 'removed') return 'active';
  return current.status;
}

/**
 * One membership record from two that were kept apart for the same person and
 * account (the copy of an old record onto one the sync wrote since), by the
 * same rules as events: each plan connection as its newer event left it, the
 * profile of the newer profile event, deletion or not as the newest event says
 * (a tie goes to `b`), and the onboarding run the first payment started.
 */
export function mergeMembershipRecords(a: MembershipRecord, b: MembershipRecord): MembershipRecord {
  const lastEvent = (r: MembershipRecord) => Math.max(r.profile_at ?? 0, r.deleted_at ?? 0, ...Object.values(r.plans).map((p) => p.at));
  const [older, newer] = lastEvent(a) > lastEvent(b) ? [b, a] : [a, b];
  const profile = (a.profile_at ?? 0) > (b.profile_at ?? 0) ? a : b;
  const merged: MembershipRecord = structuredClone(newer);
  merged.member_id = profile.member_id;
  delete merged.profile_at;
  delete merged.custom_fields;
  if (profile.profile_at !== undefined) merged.profile_at = profile.profile_at;
  if (profile.custom_fields) merged.custom_fields = structuredClone(profile.custom_fields);
  for (const [id, plan] of Object.entries(older.plans)) {
    const known = Object.hasOwn(merged.plans, id) ? merged.plans[id] : undefined;
    if (!known || known.at < plan.at) merged.plans[id] = structuredClone(plan);
  }
  const deletedAt = Math.max(a.deleted_at ?? -Infinity, b.deleted_at ?? -Infinity);
  if (Number.isFinite(deletedAt)) merged.deleted_at = deletedAt;
  const run = a.onboarding_run ?? b.onboarding_run;
  if (run) merged.onboarding_run = run;
  merged.paying = merged.status === 'active' && Object.values(merged.plans).some(isPayingPlan);
  return merged;
}
