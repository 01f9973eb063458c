// The people of an account: invitations, joining, roles and leaving. Who may
// call each of these is the route's rule, enforced before they run
// (lib/permissions.ts); what is left here are the rules about people:
// - one joins only by accepting an invitation sent to an address they have
//   verified, signed in as themselves;
// - an invitation works once, lapses after INVITATION_TTL_DAYS, and can be revoked;
// - an admin may invite members and admins, only an owner makes owners, and
//   a person's invitation stands only while they could still send it: one
//   removed, or demoted below what they invited to, has it revoked;
// - an account never loses its last owner (the membership store guarantees it).
import { randomUUID } from 'node:crypto';
import type { RateLimit } from '../config.ts';
import { Conflict, Forbidden, Gone, NotFound, RateLimited, type DomainError } from '../errors.ts';
import type { IdentityUser } from '../identity/identity.ts';
import type { Mailer, OutgoingEmail } from '../integrations/mailer.ts';
import type { Logger } from '../log.ts';
import { mayGrant, mayInvite, type Role } from '../permissions.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { normaliseEmail, type AccountStore } from './accounts.ts';
import { invitationEmail, invitationLimitEmail } from './emails.ts';
import { accountClosed, isAccountOpen } from './lifecycle.ts';
import { INVITATION_TTL_DAYS, isOpen, type Invitation, type InvitationStore, type Inviter, type Opening } from './invitations.ts';
import type { Membership, MembershipStore, SeatChange } from './memberships.ts';

export interface TeamDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  memberships: MembershipStore;
  invitations: InvitationStore;
  mailer: Mailer | null;
  /** Invitation links go to {portalUrl}/invitations/<id>. */
  portalUrl: string;
  /**
   * How many invitation e-mails an account may send per window, and a person
   * inviting, in all their accounts: without a limit, anyone could sign up
   * with a company name of their choosing and have the agency's domain mail
   * it to any address (and with a limit per account only, open account after
   * account).
   */
  invitationLimit?: { limiter: RateLimiter; limit: RateLimit };
  now?: () => Date;
  newId?: () => string;
}

export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  joinedAt: string;
  joinedVia: Membership['joined_via'];
}

export interface InvitationView {
  invitationId: string;
  accountId: string;
  email: string;
  role: Role;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  invitedBy: Inviter;
  createdAt: string;
  expiresAt: string;
  acceptedAt?: string;
  revokedAt?: string;
}

export const memberView = (m: Membership): MemberView => ({
  userId: m.user_id,
  email: m.email,
  role: m.role,
  joinedAt: m.joined_at,
  joinedVia: m.joined_via,
});

export function invitationView(i: Invitation, now: Date): InvitationView {
  return {
    invitationId: i.id,
    accountId: i.account_id,
    email: i.email,
    role: i.role,
    status: i.status === 'pending' && !isOpen(i, now) ? 'expired' : i.status,
    invitedBy: i.invited_by,
    createdAt: i.created_at,
    expiresAt: new Date(i.expires_at * 1000).toISOString(),
    ...(i.accepted_at ? { acceptedAt: i.accepted_at } : {}),
    ...(i.revoked_at ? { revokedAt: i.revoked_at } : {}),
  };
}

const revoked = () => new Gone('This invitation was revoked', 'invitation_revoked');

const refusal = (i: Invitation, now: Date): DomainError | undefined => {
  if (i.status === 'accepted') return new Conflict('This invitation has already been used', 'invitation_already_used');
  if (i.status === 'revoked') return revoked();
  if (!isOpen(i, now)) return new Gone(`This invitation has expired (they last ${INVITATION_TTL_DAYS} days): ask for a new one`, 'invitation_expired');
  return undefined;
};

const noSuchInvitation = () => new NotFound('No such invitation');

/** Who revoked an invitation its inviter could no longer send (Invitation.revoked_by). */
const INVITER_LOST_ROLE = 'inviter-lost-role';

/**
 * Whether a person's invitation still stands: its inviter is an active
 * member who may still invite to its role. Others' (the internal service, a
 * sync, a purchase, the migration) always do.
 */
async function inviterStillGrants(deps: Pick<TeamDeps, 'memberships'>, invitation: Invitation): Promise<boolean> {
  if (invitation.invited_by.kind !== 'user') return true;
  const inviter = await deps.memberships.get(invitation.account_id, invitation.invited_by.userId);
  return inviter?.status === 'active' && mayInvite(inviter.role, invitation.role);
}

/**
 * Invites an address to the account, and e-mails them the link. Refused when
 * the address already belongs to a member, or has an open invitation here
 * (the store decides, so concurrent invitations of one address open one);
 * undone if the e-mail cannot be sent, so a failed invitation leaves nothing.
 */
export async function invite(
  deps: TeamDeps,
  request: { accountId: string; email: string; role: Role; invitedBy: Inviter; inviterRole?: Role },
): Promise<InvitationView> {
  if (request.inviterRole && !mayGrant(request.inviterRole, request.role)) {
    throw new Forbidden(`As ${request.inviterRole === 'admin' ? 'an' : 'a'} ${request.inviterRole} you may not invite an ${request.role}`);
  }
  const account = await deps.accounts.getAccount(request.accountId);
  if (!account) throw new NotFound('No such account, or not one you belong to');
  const email = normaliseEmail(request.email);
  const members = await deps.memberships.ofAccount(account.id);
  if (members.some((m) => m.status === 'active' && m.email === email)) throw new Conflict('This address already belongs to a member of the account', 'already_member');
  // A look first, so that a repeat is refused without counting against the limit; the store's write decides.
  const pending = () => new Conflict('This address already has an open invitation to the account; revoke it to send another', 'invitation_pending');
  if (await openInvitation(deps, account.id, email)) throw pending();
  const issued = await issue(deps, { accountId: account.id, companyName: account.company_name, email, role: request.role, invitedBy: request.invitedBy });
  if (!issued.opened) {
    throw issued.why === 'closed' ? new Conflict('This person was removed from the account meanwhile; look again and retry', 'membership_changed') : pending();
  }
  return invitationView(issued.invitation, now(deps));
}

/** The open invitation of this address to the account, if there is one. */
export async function openInvitation(deps: Pick<TeamDeps, 'invitations' | 'now'>, accountId: string, email: string): Promise<Invitation | undefined> {
  return (await deps.invitations.toEmail(email)).find((i) => i.account_id === accountId && isOpen(i, now(deps)));
}

export type Issued = { opened: true; invitation: Invitation } | { opened: false; why: Exclude<Opening, 'opened'> };

export interface IssueOptions {
  /**
   * For flows a person is not waiting on (syncs, purchases, the service's onboarding): an invitation
   * past the limit, or whose e-mail fails, is kept (and logged here) rather than refused or undone.
   */
  keepIfUnsent?: Logger;
  /** `later`: written unsent (mail 'due'), for the onboarding run to e-mail (sendDueInvitations). */
  mail?: 'now' | 'later';
  /** A sync's: not for a person the account removed or whose invitation it revoked (the store checks it as it writes). */
  unlessBarred?: boolean;
}

/**
 * Opens an invitation and e-mails it (the caller has decided it is due). At
 * most one is open per account and address: when one is, nothing is written or
 * sent. The invitee also finds it on signing in, so with `keepIfUnsent` a
 * failed e-mail is logged and the invitation kept; without it, the failure
 * undoes the invitation and is the answer. Every invitation counts against the
 * account's limit, a person's also against theirs, and a sync's against each
 * owner's (a second account's membership URL is no second budget). Past a
 * limit: 429 before anything is written, or with `keepIfUnsent` kept unsent
 * (mail 'held') and the owners told once per window.
 */
export async function issue(deps: TeamDeps, request: InvitationRequest, options: IssueOptions = {}): Promise<Issued> {
  const at = now(deps);
  const { mailer } = deps;
  await refuseUnlessOpen(deps, request.accountId);
  const limited = mailer ? await pastInvitationLimit(deps, request) : undefined;
  if (limited && !options.keepIfUnsent) throw limited;
  const later = options.mail === 'later';
  const invitation: Invitation = {
    id: (deps.newId ?? randomUUID)(),
    account_id: request.accountId,
    email: normaliseEmail(request.email),
    role: request.role,
    status: 'pending',
    invited_by: request.invitedBy,
    created_at: at.toISOString(),
    expires_at: Math.floor(at.getTime() / 1000) + INVITATION_TTL_DAYS * 86_400,
    ...(limited ? { mail: 'held' as const } : later && mailer ? { mail: 'due' as const } : {}),
  };
  const opening = await deps.invitations.open(invitation, { unlessBarred: options.unlessBarred });
  if (opening !== 'opened') return { opened: false, why: opening };
  // An offboarding that began meanwhile revoked the invitations it found, perhaps before this one was written.
  await refuseUnlessOpen(deps, request.accountId, () => deps.invitations.revoke(invitation.id, ACCOUNT_CLOSED, at));
  const issued = { opened: true as const, invitation };
  if (limited && mailer && options.keepIfUnsent) {
    options.keepIfUnsent.warn('an invitation was not e-mailed: the account is past its invitation limit; it waits for the invitee to sign in', {
      invitationId: invitation.id,
      accountId: invitation.account_id,
    });
    await tellOwnersOfLimit(deps, mailer, invitation, request.companyName, options.keepIfUnsent);
    return issued;
  }
  if (!mailer || later) return issued;
  try {
    await mailer.send(invitationMessage(deps, invitation, request));
  } catch (error) {
    if (options.keepIfUnsent) {
      options.keepIfUnsent.warn('an invitation e-mail could not be sent; the invitation waits for the invitee to sign in', { invitationId: invitation.id, accountId: invitation.account_id, error });
      return issued;
    }
    await deps.invitations.revoke(invitation.id, 'undelivered', at).catch(() => undefined);
    throw error;
  }
  return issued;
}

/** Who revokes an account's invitations when it closes. */
export const ACCOUNT_CLOSED = 'account-closed';

/** A closing or closed account takes no new invitation (409 account_closed); `undo` runs first. */
async function refuseUnlessOpen(deps: Pick<TeamDeps, 'accounts'>, accountId: string, undo?: () => Promise<unknown>): Promise<void> {
  const account = await deps.accounts.getAccount(accountId);
  if (!account || isAccountOpen(account.status)) return;
  await undo?.();
  throw accountClosed(account.status);
}

type InvitationRequest = { accountId: string; companyName?: string; email: string; role: Role; invitedBy: Inviter };

/** The invitation's e-mail: one per invitation, whoever sends it and however often. */
function invitationMessage(deps: Pick<TeamDeps, 'portalUrl'>, invitation: Invitation, request: { companyName?: string; invitedBy: Inviter }): OutgoingEmail {
  return {
    to: invitation.email,
    ...invitationEmail({
      company: request.companyName,
      inviter: request.invitedBy.kind === 'user' ? request.invitedBy.email : undefined,
      role: invitation.role,
      link: `${deps.portalUrl}/invitations/${invitation.id}`,
      validDays: INVITATION_TTL_DAYS,
    }),
    idempotencyKey: `invitation/${invitation.id}`,
    kind: 'invitation',
  };
}

/**
 * E-mails the account's open invitations that wait for the onboarding run
 * (mail 'due'), each once (its own idempotency key; marked sent after), and
 * answers their ids. A failure is the caller's: the run's e-mail step fails,
 * and is retried and followed up like any other.
 */
export async function sendDueInvitations(
  deps: Pick<TeamDeps, 'accounts' | 'portalUrl' | 'now'> & { invitations: Pick<InvitationStore, 'ofAccount' | 'markSent'>; mailer: Mailer },
  accountId: string,
): Promise<string[]> {
  const due = (await deps.invitations.ofAccount(accountId)).filter((i) => i.mail === 'due' && isOpen(i, now(deps)));
  if (!due.length) return [];
  const account = await deps.accounts.getAccount(accountId);
  for (const invitation of due) {
    await deps.mailer.send(invitationMessage(deps, invitation, { companyName: account?.company_name, invitedBy: invitation.invited_by }));
    await deps.invitations.markSent(invitation.id, now(deps));
  }
  return due.map((i) => i.id);
}

/**
 * Counts one invitation e-mail against the limits, and answers the refusal
 * past one: the people behind it first (so one person's refused invitations
 * do not use up their account's budget for its other members), then the
 * account's. Behind a person's invitation is that person; behind a sync's,
 * the account's owners; behind the internal service's, a purchase's or the
 * migration's, nobody but the account.
 */
async function pastInvitationLimit(deps: TeamDeps, request: { accountId: string; invitedBy: Inviter }): Promise<RateLimited | undefined> {
  if (!deps.invitationLimit) return undefined;
  const { limiter, limit } = deps.invitationLimit;
  const people =
    request.invitedBy.kind === 'user'
      ? [request.invitedBy.userId]
      : request.invitedBy.kind === 'membership-sync'
        ? (await deps.memberships.ofAccount(request.accountId)).filter((m) => m.status === 'active' && m.role === 'owner').map((m) => m.user_id)
        : [];
  for (const person of people) {
    const theirs = await limiter.hit({ name: 'invitations-user', ...limit }, person);
    if (!theirs.allowed) return new RateLimited('You have sent too many invitations; try again later', theirs.retryAfterSeconds);
  }
  const account = await limiter.hit({ name: 'invitations-account', ...limit }, request.accountId);
  return account.allowed ? undefined : new RateLimited('This account has sent too many invitations; try again later', account.retryAfterSeconds);
}

/** Tells the account's owners, once per limit window, that its invitations are kept unsent; a failure is only logged. */
async function tellOwnersOfLimit(deps: TeamDeps, mailer: Mailer, invitation: Invitation, companyName: string | undefined, log: Logger): Promise<void> {
  const { limiter, limit } = deps.invitationLimit!;
  const accountId = invitation.account_id;
  try {
    const owners = (await deps.memberships.ofAccount(accountId)).filter((m) => m.status === 'active' && m.role === 'owner').map((m) => m.email);
    if (!owners.length || !(await limiter.hit({ name: 'invitations-limit-notice', limit: 1, windowSeconds: limit.windowSeconds }, accountId)).allowed) return;
    await mailer.send({
      to: owners,
      ...invitationLimitEmail({ company: companyName, limit: limit.limit, windowMinutes: Math.round(limit.windowSeconds / 60) }),
      idempotencyKey: `invitation-limit/${invitation.id}`,
      kind: 'invitation-limit',
    });
  } catch (error) {
    log.warn("the account's owners could not be told that its invitations are past the limit", { accountId, error });
  }
}

/**
 * The signed-in user accepts an invitation sent to their verified address,
 * and is a member from their next request. Accepting twice at once (a double
 * click) is one acceptance; a used, revoked or lapsed invitation is refused,
 * and so is one whose inviter has since been removed, or lowered to a role
 * that may not send it (it is marked revoked): an admin who is removed does
 * not come back in through an invitation they sent to an address of theirs.
 */
export async function acceptInvitation(
  deps: Pick<TeamDeps, 'accounts' | 'memberships' | 'invitations' | 'now'>,
  user: IdentityUser,
  invitationId: string,
): Promise<{ accountId: string; role: Role }> {
  const at = now(deps);
  const invitation = await deps.invitations.get(invitationId);
  if (!invitation) throw noSuchInvitation();
  const refused = refusal(invitation, at);
  if (refused) throw refused;
  if (!(await inviterStillGrants(deps, invitation))) {
    await deps.invitations.revoke(invitation.id, INVITER_LOST_ROLE, at);
    throw revoked();
  }
  if (!user.emailConfirmed) throw new Forbidden('Verify your e-mail address before accepting an invitation', 'email_not_confirmed');
  if (normaliseEmail(user.email) !== invitation.email) {
    throw new Forbidden('This invitation was sent to another e-mail address: sign in with that one', 'invitation_not_for_you');
  }

  // A closing account's invitations are revoked by its offboarding, which finds them through an index that may lag a
  // fresh one: checked here too, before joining and after (the account may begin closing in between).
  const revokeForClosed = () => deps.invitations.revoke(invitation.id, ACCOUNT_CLOSED, at);
  await refuseUnlessOpen(deps, invitation.account_id, revokeForClosed);

  // Joined first, then marked used: a crash in between leaves an invitation that can be accepted again, never a used one without its member.
  const { membership, joined } = await deps.memberships.join({
    accountId: invitation.account_id,
    userId: user.id,
    email: invitation.email,
    role: invitation.role,
    via: 'invitation',
    invitationId: invitation.id,
  });
  await refuseUnlessOpen(deps, invitation.account_id, async () => {
    if (joined) await deps.memberships.remove(invitation.account_id, user.id, invitation.role);
    await revokeForClosed();
  });
  if (!(await deps.invitations.accept(invitation.id, user.id, at))) {
    const now = await deps.invitations.get(invitation.id);
    if (now?.status === 'accepted' && now.accepted_by === user.id) return { accountId: invitation.account_id, role: membership.role };
    if (joined) await deps.memberships.remove(invitation.account_id, user.id, invitation.role);
    throw (now && refusal(now, at)) ?? noSuchInvitation();
  }
  // A member invited again with a higher role takes it up.
  if (!joined && mayGrant(invitation.role, membership.role) && invitation.role !== membership.role) {
    await deps.memberships.setRole(invitation.account_id, user.id, membership.role, invitation.role);
    return { accountId: invitation.account_id, role: invitation.role };
  }
  return { accountId: invitation.account_id, role: membership.role };
}

/** An owner's or admin's revocation: the account's decision about the person, so no sync invites them again. */
export async function revokeInvitation(deps: Pick<TeamDeps, 'invitations' | 'now'>, accountId: string, invitationId: string, by: string): Promise<InvitationView> {
  const invitation = await deps.invitations.get(invitationId);
  if (invitation?.account_id !== accountId) throw noSuchInvitation();
  if (!(await deps.invitations.revoke(invitationId, by, now(deps), { bar: true }))) {
    throw new Conflict(`This invitation is ${invitation.status} and can no longer be revoked`, 'invitation_not_pending');
  }
  return invitationView((await deps.invitations.get(invitationId))!, now(deps));
}

export async function listInvitations(deps: Pick<TeamDeps, 'now'> & { invitations: Pick<InvitationStore, 'ofAccount'> }, accountId: string): Promise<InvitationView[]> {
  return (await deps.invitations.ofAccount(accountId)).map((i) => invitationView(i, now(deps)));
}

/** What waits for a person at their verified address: open invitations, with the account's company name. */
export async function invitationsWaitingFor(deps: Pick<TeamDeps, 'accounts' | 'now'> & { invitations: Pick<InvitationStore, 'toEmail'> }, email: string) {
  const open = (await deps.invitations.toEmail(normaliseEmail(email))).filter((i) => isOpen(i, now(deps)));
  const accounts = await Promise.all(open.map((i) => deps.accounts.getAccount(i.account_id)));
  return open.map((i, n) => ({ ...invitationView(i, now(deps)), companyName: accounts[n]?.company_name ?? null }));
}

export async function listMembers(deps: { memberships: Pick<MembershipStore, 'ofAccount'> }, accountId: string): Promise<MemberView[]> {
  return (await deps.memberships.ofAccount(accountId)).filter((m) => m.status === 'active').map(memberView);
}

const lastOwner = () => new Conflict('An account must keep an owner: make someone else an owner first', 'last_owner');

function settle(change: SeatChange): void {
  if (change === 'last-owner') throw lastOwner();
  if (change === 'not-member') throw new NotFound('No such member of this account');
  if (change === 'moved-meanwhile') throw new Conflict('This membership changed meanwhile; look again and retry', 'membership_changed');
}

async function activeMember(deps: Pick<TeamDeps, 'memberships'>, accountId: string, userId: string): Promise<Membership> {
  const member = await deps.memberships.get(accountId, userId);
  if (member?.status !== 'active') throw new NotFound('No such member of this account');
  return member;
}

/**
 * Revokes the member's pending invitations to the account that their role now
 * (none: they are gone) may not send, so that the account's list tells the
 * truth; acceptance checks the inviter again, for one sent meanwhile.
 */
async function revokeWhatTheyMayNoLongerGrant(deps: Pick<TeamDeps, 'invitations' | 'now'>, accountId: string, userId: string, role: Role | undefined): Promise<void> {
  const theirs = (await deps.invitations.ofAccount(accountId)).filter(
    (i) => i.status === 'pending' && i.invited_by.kind === 'user' && i.invited_by.userId === userId && !(role && mayInvite(role, i.role)),
  );
  await Promise.all(theirs.map((i) => deps.invitations.revoke(i.id, INVITER_LOST_ROLE, now(deps))));
}

/** Changes a member's role; lowered, their invitations to roles they may no longer grant are revoked. */
export async function changeRole(deps: Pick<TeamDeps, 'memberships' | 'invitations' | 'now'>, accountId: string, userId: string, role: Role): Promise<MemberView> {
  const member = await activeMember(deps, accountId, userId);
  settle(await deps.memberships.setRole(accountId, userId, member.role, role));
  await revokeWhatTheyMayNoLongerGrant(deps, accountId, userId, role);
  return memberView({ ...member, role });
}

/**
 * Removes a member (or they leave). Every invitation still open to them is
 * revoked (a race may have left one beside the one they accepted), no sync
 * invites them again, and the invitations they sent that are still pending
 * are revoked.
 */
export async function removeMember(deps: Pick<TeamDeps, 'memberships' | 'invitations' | 'now'>, accountId: string, userId: string): Promise<void> {
  const member = await activeMember(deps, accountId, userId);
  settle(await deps.memberships.remove(accountId, userId, member.role));
  await deps.invitations.closeTo(accountId, member.email, MEMBER_REMOVED, now(deps));
  await revokeWhatTheyMayNoLongerGrant(deps, accountId, userId, undefined);
}

/** Who revoked the invitations to a member who was removed or left (Invitation.revoked_by). */
const MEMBER_REMOVED = 'member-removed';

const now = (deps: Pick<TeamDeps, 'now'>) => deps.now?.() ?? new Date();
