// In-memory memberships and invitations, with the same rules as their
// DynamoDB adapters (the last owner is kept; an invitation is accepted or
// revoked only while it is pending), for use-case tests.
import type { Invitation, InvitationStore } from '../../lib/accounts/invitations.ts';
import type { Membership, MembershipStore, SeatChange } from '../../lib/accounts/memberships.ts';
import type { TeamDeps } from '../../lib/accounts/team.ts';
import type { IdentityUser } from '../../lib/identity/identity.ts';
import type { Role } from '../../lib/permissions.ts';
import { fakeAccounts, fakeMailer } from './fakes.ts';

const tick = () => new Promise<void>((r) => setImmediate(r));

export function fakeMemberships(): MembershipStore & { rows: Map<string, Membership> } {
  const rows = new Map<string, Membership>();
  const key = (accountId: string, userId: string) => `${accountId}/${userId}`;
  const owners = (accountId: string) => [...rows.values()].filter((m) => m.account_id === accountId && m.status === 'active' && m.role === 'owner').length;
  const change = async (accountId: string, userId: string, role: Role, apply: (m: Membership) => Membership, losesOwner: boolean): Promise<SeatChange> => {
    await tick();
    const m = rows.get(key(accountId, userId));
    if (m?.status !== 'active') return 'not-member';
    if (m.role !== role) return 'moved-meanwhile';
    if (losesOwner && owners(accountId) <= 1) return 'last-owner';
    rows.set(key(accountId, userId), { ...apply(m), updated_at: new Date().toISOString() });
    return 'changed';
  };
  return {
    rows,
    get: async (accountId, userId) => rows.get(key(accountId, userId)),
    ofUser: async (userId) => [...rows.values()].filter((m) => m.user_id === userId),
    ofAccount: async (accountId) => [...rows.values()].filter((m) => m.account_id === accountId),
    ofEmail: async (email) => [...rows.values()].filter((m) => m.email === email),
    async join(n) {
      await tick();
      const existing = rows.get(key(n.accountId, n.userId));
      if (existing?.status === 'active') return { membership: existing, joined: false };
      const at = new Date().toISOString();
      const membership: Membership = {
        account_id: n.accountId,
        user_id: n.userId,
        email: n.email,
        role: n.role,
        status: 'active',
        joined_via: n.via,
        ...(n.invitationId ? { invitation_id: n.invitationId } : {}),
        joined_at: at,
        updated_at: at,
      };
      rows.set(key(n.accountId, n.userId), membership);
      return { membership, joined: true };
    },
    setRole: (accountId, userId, from, to) => change(accountId, userId, from, (m) => ({ ...m, role: to }), from === 'owner' && to !== 'owner'),
    remove: (accountId, userId, role) => change(accountId, userId, role, (m) => ({ ...m, status: 'removed' }), role === 'owner'),
  };
}

export function fakeInvitations(): InvitationStore & { rows: Map<string, Invitation> } {
  const rows = new Map<string, Invitation>();
  const newestFirst = (list: Invitation[]) => list.sort((a, b) => b.created_at.localeCompare(a.created_at));
  return {
    rows,
    async create(invitation) {
      if (rows.has(invitation.id)) throw new Error('exists');
      rows.set(invitation.id, invitation);
    },
    get: async (id) => rows.get(id),
    ofAccount: async (accountId) => newestFirst([...rows.values()].filter((i) => i.account_id === accountId)),
    toEmail: async (email) => newestFirst([...rows.values()].filter((i) => i.email === email)),
    async accept(id, userId, now) {
      await tick();
      const i = rows.get(id);
      if (i?.status !== 'pending' || i.expires_at <= Math.floor(now.getTime() / 1000)) return false;
      rows.set(id, { ...i, status: 'accepted', accepted_by: userId, accepted_at: now.toISOString() });
      return true;
    },
    async revoke(id, by, now) {
      await tick();
      const i = rows.get(id);
      if (i?.status !== 'pending') return false;
      rows.set(id, { ...i, status: 'revoked', revoked_by: by, revoked_at: now.toISOString() });
      return true;
    },
  };
}

/** Everything the team use cases need, in memory, with a clock a test can move. */
export function fakeTeam(options: { now?: () => Date } = {}) {
  const accounts = fakeAccounts();
  const memberships = fakeMemberships();
  const invitations = fakeInvitations();
  const mailer = fakeMailer();
  let n = 0;
  const deps: TeamDeps = {
    accounts: accounts.store,
    memberships,
    invitations,
    mailer,
    portalUrl: 'https://portal.test',
    now: options.now,
    newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  };
  return { deps, accounts, memberships, invitations, mailer };
}

export function user(overrides: Partial<IdentityUser> = {}): IdentityUser {
  const id = overrides.id ?? crypto.randomUUID();
  return { id, email: `${id.slice(0, 8)}@example.com`, emailConfirmed: true, appMetadata: {}, userMetadata: {}, ...overrides };
}
