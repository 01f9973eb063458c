// The rules of decideMembership, one by one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MembershipEvent } from '../../../lib/webhooks/membership-events.ts';
import { decideMembership, mergeMembershipRecords, type MembershipMember } from '../../../lib/webhooks/membership-state.ts';

const created = (at: number, plans?: { id: string; type?: string; status?: string; active: boolean }[]): Extract<MembershipEvent, { type: 'member.created' | 'member.updated' }> => ({
  type: 'member.created',
  memberId: 'mem_1',
  email: 'ann@example.com',
  at,
  name: 'Ann Lee',
  customFields: { 'first-name': 'Ann' },
  ...(plans ? { plans } : {}),
});
const plan = (type: 'member.plan.created' | 'member.plan.updated' | 'member.plan.canceled', at: number, p: { id: string; type?: string; status?: string; active: boolean }): MembershipEvent => ({
  type,
  memberId: 'mem_1',
  at,
  plan: p,
});

/** Applies events in order, as the store would keep the results. */
function replay(events: MembershipEvent[], start?: MembershipMember): MembershipMember | undefined {
  let member = start;
  for (const event of events) {
    const d = decideMembership(member, 'acct', 'ann@example.com', event);
    if (d.kind === 'save' || d.kind === 'unchanged') member = { ...d.member, membership_version: (member?.membership_version ?? 0) + (d.kind === 'save' ? 1 : 0) };
  }
  return member;
}

describe('membership decisions', () => {
  it('creates a new member of the account, active, with the membership and name', () => {
    const d = decideMembership(undefined, 'acct', 'ann@example.com', created(1));
    expect(d).toMatchObject({
      kind: 'save',
      create: true,
      changes: { status: 'active', name: 'Ann Lee' },
      member: { email: 'ann@example.com', account_id: 'acct', role: 'member', status: 'active', membership: { member_id: 'mem_1', status: 'active', paying: false } },
    });
  });

  it('counts a member as paying on an active, non-free plan, and not after the plan is cancelled', () => {
    const paying = replay([created(1), plan('member.plan.created', 2, { id: 'con_1', type: 'SUBSCRIPTION', status: 'ACTIVE', active: true })]);
    expect(paying?.membership).toMatchObject({ paying: true, plans: { con_1: { type: 'SUBSCRIPTION', status: 'ACTIVE', active: true, at: 2 } } });
    expect(replay([created(1, [{ id: 'con_f', type: 'FREE', status: 'ACTIVE', active: true }])])?.membership?.paying).toBe(false);
    expect(replay([created(1, [{ id: 'con_t', type: 'SUBSCRIPTION', status: 'TRIALING', active: true }])])?.membership?.paying).toBe(true);
    expect(replay([created(1, [{ id: 'con_p', type: 'SUBSCRIPTION', status: 'PAST_DUE', active: true }])])?.membership?.paying).toBe(false);
    const cancelled = replay([plan('member.plan.canceled', 3, { id: 'con_1', type: 'SUBSCRIPTION', active: true })], paying);
    expect(cancelled?.membership).toMatchObject({ paying: false, plans: { con_1: { active: false, status: 'CANCELED', at: 3 } } });
  });

  it('does not let an older event overwrite a newer one', () => {
    const paying = replay([created(1), plan('member.plan.updated', 5, { id: 'con_1', type: 'SUBSCRIPTION', status: 'ACTIVE', active: true })]);
    const late = decideMembership(paying, 'acct', 'ann@example.com', plan('member.plan.canceled', 4, { id: 'con_1', active: false }));
    expect(late.kind).toBe('unchanged');
    const olderProfile = decideMembership(paying, 'acct', 'ann@example.com', { ...created(0), name: 'Old Name', type: 'member.updated' });
    expect(olderProfile.kind).toBe('unchanged');
  });

  it('changes nothing when the same state arrives again', () => {
    const once = replay([created(1)]);
    expect(decideMembership(once, 'acct', 'ann@example.com', created(1)).kind).toBe('unchanged');
  });

  it('removes a deleted plain member, keeps an owner signed in, and revives on a later signup', () => {
    const deleted = replay([created(1), { type: 'member.deleted', memberId: 'mem_1', at: 2 }]);
    expect(deleted).toMatchObject({ status: 'removed', membership: { status: 'deleted', deleted_at: 2, paying: false } });
    const owner: MembershipMember = { email: 'ann@example.com', account_id: 'acct', role: 'owner', status: 'active' };
    expect(replay([created(1), { type: 'member.deleted', memberId: 'mem_1', at: 2 }], owner)).toMatchObject({ status: 'active', membership: { status: 'deleted' } });
    expect(replay([created(3)], deleted)).toMatchObject({ status: 'active', membership: { status: 'active' } });
    expect(decideMembership(undefined, 'acct', 'ann@example.com', { type: 'member.deleted', memberId: 'mem_1', at: 1 })).toEqual({ kind: 'unknown-member' });
  });

  it('adds the membership to an existing member (the owner) without touching role or status', () => {
    const owner: MembershipMember = { email: 'ann@example.com', account_id: 'acct', role: 'owner', status: 'provisioning', name: 'Ann Lee' };
    const d = decideMembership(owner, 'acct', 'ann@example.com', created(1));
    expect(d).toMatchObject({ kind: 'save', create: false, changes: {}, member: { role: 'owner', status: 'provisioning', membership: { member_id: 'mem_1' } } });
  });
});

describe('merging two records of one person (the copy of an old record onto one the sync wrote since)', () => {
  // Events of one member at distinct times: profile edits, deletions and plan changes.
  const event = fc.oneof(
    fc.record({ kind: fc.constant('profile' as const), seats: fc.integer({ min: 0, max: 9 }) }),
    fc.record({ kind: fc.constant('deleted' as const) }),
    fc.record({
      kind: fc.constantFrom('member.plan.created' as const, 'member.plan.updated' as const, 'member.plan.canceled' as const),
      id: fc.constantFrom('con_a', 'con_b'),
      type: fc.constantFrom('SUBSCRIPTION', 'FREE'),
      status: fc.constantFrom('ACTIVE', 'TRIALING', 'PAST_DUE'),
      active: fc.boolean(),
    }),
  );
  type Generated = typeof event extends fc.Arbitrary<infer T> ? T : never;
  const toEvent = (e: Generated, at: number): MembershipEvent =>
    e.kind === 'profile'
      ? { type: 'member.updated', memberId: 'mem_1', email: 'ann@example.com', at, customFields: { seats: e.seats } }
      : e.kind === 'deleted'
        ? { type: 'member.deleted', memberId: 'mem_1', at }
        : plan(e.kind, at, { id: e.id, type: e.type, status: e.status, active: e.active });

  it('gives the record that all the events, in time order, give, also when the two records’ events interleave', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ e: event, side: fc.constantFrom('old' as const, 'new' as const) }), { minLength: 2, maxLength: 24 }),
        fc.boolean(),
        (events, cut) => {
          // The old record holds some events, the new one the others, started afresh:
          // a deletion that reaches it before anything else finds nobody (left out).
          // With `cut`, every event of the new record comes after the old's (the usual case).
          const timed = events.map(({ e, side }, i) => ({ side, event: toEvent(e, cut ? (side === 'old' ? 1000 : 2000) + i : 1000 + i) }));
          const first = timed.findIndex((t) => t.side === 'new' && t.event.type !== 'member.deleted');
          fc.pre(first >= 0);
          const kept = timed.filter((t, i) => !(t.side === 'new' && i < first));
          const inTime = (side?: 'old' | 'new') => kept.filter((t) => !side || t.side === side).map((t) => t.event).sort((x, y) => x.at - y.at);
          const a = replay([created(1), ...inTime('old')])!.membership!;
          const b = replay(inTime('new'))!.membership!;
          const all = replay([created(1), ...inTime()])!.membership!;
          expect(mergeMembershipRecords(a, b)).toEqual(all);
          expect(mergeMembershipRecords(b, a)).toEqual(all);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('keeps the onboarding run the first payment started, from whichever record has it', () => {
    const a = { ...replay([created(1)])!.membership!, onboarding_run: 'run-1' };
    const b = replay([created(5)])!.membership!;
    expect(mergeMembershipRecords(a, b).onboarding_run).toBe('run-1');
    expect(mergeMembershipRecords(b, a).onboarding_run).toBe('run-1');
  });
});
