// In-memory memberships and invitations, with the same rules as their
// DynamoDB adapters (the last owner is kept; an invitation is accepted or
// revoked only while it is pending), for use-case tests.
import { isOpen, type Invitation, type InvitationStore } from '../../lib/accounts/invitations.ts';
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

export function fakeInvitations(now: () => Date = () => new Date()): InvitationStore & { rows: Map<string, Invitation> } {
  const rows = new Map<string, Invitation>();
  /** Per (account, address): the invitation open to it, and whether syncs are barred from it. */
  const addresses = new Map<string, { openId?: string; barred?: boolean }>();
  const addressOf = (i: Pick<Invitation, 'account_id' | 'email'>) => `${i.account_id}#${i.email}`;
  const newestFirst = (list: Invitation[]) => list.sort((a, b) => b.created_at.localeCompare(a.created_at));
  const settle = (id: string, change: (i: Invitation) => Invitation, also: (i: Invitation) => boolean = () => true) => {
    const i = rows.get(id);
    if (i?.status !== 'pending' || !also(i)) return undefined;
    rows.set(id, change(i));
    return i;
  };
  const free = (i: Invitation) => {
    const address = addresses.get(addressOf(i));
    if (address?.openId === i.id) addresses.set(addressOf(i), { ...address, openId: undefined });
  };
  const markRevoked = (id: string, by: string, at: Date) => settle(id, (i) => ({ ...i, status: 'revoked', revoked_by: by, revoked_at: at.toISOString() }));
  return {
    rows,
    async open(invitation, options = {}) {
      await tick();
      const address = addresses.get(addressOf(invitation)) ?? {};
      if (options.unlessBarred && address.barred) return 'barred';
      const holder = address.openId ? rows.get(address.openId) : undefined;
      // An address taken for an invitation not yet written is taken.
      if (address.openId && (!holder || isOpen(holder, now()))) return 'pending';
      if (rows.has(invitation.id)) throw new Error('exists');
      addresses.set(addressOf(invitation), { ...address, openId: invitation.id });
      await tick();
      rows.set(invitation.id, invitation);
      await tick();
      if (addresses.get(addressOf(invitation))?.openId !== invitation.id && markRevoked(invitation.id, 'address-closed', now())) return 'closed';
      return 'opened';
    },
    get: async (id) => rows.get(id),
    ofAccount: async (accountId) => newestFirst([...rows.values()].filter((i) => i.account_id === accountId)),
    toEmail: async (email) => newestFirst([...rows.values()].filter((i) => i.email === email)),
    async accept(id, userId, at) {
      await tick();
      const accepted = settle(id, (i) => ({ ...i, status: 'accepted', accepted_by: userId, accepted_at: at.toISOString() }), (i) => i.expires_at > Math.floor(at.getTime() / 1000));
      if (accepted) free(accepted);
      return accepted !== undefined;
    },
    async revoke(id, by, at, options = {}) {
      await tick();
      const revoked = markRevoked(id, by, at);
      if (!revoked) return false;
      free(revoked);
      if (options.bar) addresses.set(addressOf(revoked), { ...addresses.get(addressOf(revoked)), barred: true });
      return true;
    },
    async closeTo(accountId, email, by, at) {
      await tick();
      const key = addressOf({ account_id: accountId, email });
      const before = addresses.get(key);
      addresses.set(key, { barred: true });
      await tick();
      for (const i of rows.values()) if (i.account_id === accountId && i.email === email) markRevoked(i.id, by, at);
      if (before?.openId) markRevoked(before.openId, by, at);
    },
    async markSent(id, at) {
      const i = rows.get(id);
      if (i) rows.set(id, { ...i, mail: 'sent', mailed_at: at.toISOString() });
    },
  };
}

/** Everything the team use cases need, in memory, with a clock a test can move. */
export function fakeTeam(options: { now?: () => Date } = {}) {
  const accounts = fakeAccounts();
  const memberships = fakeMemberships();
  const invitations = fakeInvitations(options.now);
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
