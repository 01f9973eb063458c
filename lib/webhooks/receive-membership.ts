import { heldForCopy, type AccountStore } from '../accounts/accounts.ts';
import type { MembershipStore } from '../accounts/memberships.ts';
import { isOpen } from '../accounts/invitations.ts';
import { issue, type TeamDeps } from '../accounts/team.ts';
import { takeEffectOnce, type OnceDeps } from '../deliveries/deliveries.ts';
import { Conflict } from '../errors.ts';
import type { Logger } from '../log.ts';
import { intakeOf } from '../onboarding/intake.ts';
import { beginOnboarding, type OnboardingDeps } from '../onboarding/start-onboarding.ts';
import type { Ledger } from '../provisioning/ledger.ts';
import { membershipEventId, readMembershipEvent, type MembershipEvent } from './membership-events.ts';
import type { MembershipMembers } from './membership-members.ts';
import { decideMembership, type MembershipMember } from './membership-state.ts';
import { verifySvix, type SignedRequest } from './signatures.ts';
import { accountForPathSecret, type WebhookIntegrations } from './webhook-integrations.ts';

export interface MembershipDeps extends OnceDeps {
  integrations: Pick<WebhookIntegrations, 'inboundFor'>;
  members: MembershipMembers;
  accounts: AccountStore;
  /** Who has joined which account: a synced person who has not joined gets an invitation, never a membership. */
  memberships: Pick<MembershipStore, 'ofEmail'>;
  team: TeamDeps;
  /** Per account: which member record a membership-service member id is (plan and delete events carry only the id). */
  ledger: Ledger;
  /** The onboarding that a new paying member starts: the same path as onboarding-v2. */
  onboarding: Omit<OnboardingDeps, 'wait'>;
  now?: () => Date;
  log: Logger;
  /** While an upgraded stage copies its member records (config.ts memberRecordsCopying): deliveries are held. */
  copyingMemberRecords?: boolean;
}

export interface Delivery extends SignedRequest {
  /** The secret from the path; never logged. */
  secret: string | undefined;
  /**
   * The body parsed and checked against the route's schema (lib/webhooks/webhook-bodies.ts):
   * throws InvalidInput (400). Called only once the signature over rawBody is checked.
   */
  readBody: () => unknown;
}

export interface DeliveryResult {
  /** What the provider is told. */
  outcome: 'applied' | 'ignored' | 'queued' | 'duplicate';
  /** Why, for the delivery record only (it may name things the provider need not learn). */
  detail?: string;
}

const MAX_WRITE_ATTEMPTS = 5;
const linkKey = (memberId: string) => `memberstack#member#${memberId}`;

/**
 * 1. The path secret names the account (404 otherwise; 410 for a closing or closed one).
 * 2. With a Svix signing key configured, the signature must match (400).
 * 3. The body must match the route's schema and be a readable Memberstack event
 *    (400); other event types are ignored (200).
 * 4. Once per event (svix-id, or the event's identity): this account's member
 *    record is written, and a member who starts paying starts its onboarding.
 * 5. A sync never makes anyone a member: it invites (once), and a deleted member's
 *    open invitation is revoked. Other accounts' records of the address are never
 *    read, so the answer tells the sender nothing about them.
 */
export async function receiveMembershipDelivery(deps: MembershipDeps, delivery: Delivery): Promise<DeliveryResult> {
  const now = deps.now?.() ?? new Date();
  const integration = await accountForPathSecret(deps, delivery.secret);
  const signingKey = integration.signingKeys.membership;
  if (signingKey) verifySvix(signingKey, delivery, now);
  if (deps.copyingMemberRecords) throw heldForCopy();
  const parsed = readMembershipEvent(delivery.readBody(), now);
  if (!parsed.handled) return { outcome: 'ignored', detail: `unhandled event type ${parsed.type}` };

  const { accountId } = integration;
  const eventKey = `membership#${accountId}#${membershipEventId(parsed.event, delivery.headers['svix-id'])}`;
  const once = await takeEffectOnce(deps, eventKey, { accountId, source: 'memberstack' }, () => applyMembershipEvent(deps, accountId, parsed.event));
  return once.first ? once.result : { outcome: 'duplicate' };
}

async function applyMembershipEvent(deps: MembershipDeps, accountId: string, event: MembershipEvent): Promise<DeliveryResult> {
  const email = event.email ?? (await deps.ledger.get<{ email: string }>(accountId, linkKey(event.memberId)))?.email;
  if (!email) {
    if (event.type === 'member.deleted') return { outcome: 'ignored', detail: 'unknown member' };
    // A plan event overtook the member's creation: a non-2xx makes the membership service retry it later.
    throw new Conflict('This member is not known here yet; deliver the member.created event first, or retry later', 'member_not_known_yet');
  }
  // This account's memberships of the address only: whatever other accounts the person joined changes nothing here.
  const history = (await deps.memberships.ofEmail(email)).filter((m) => m.account_id === accountId);

  let member: MembershipMember | undefined;
  for (let attempt = 0; !member; attempt++) {
    if (attempt === MAX_WRITE_ATTEMPTS) throw new Conflict('The member record kept changing while this event was applied; retry later', 'member_busy');
    const decision = decideMembership(await deps.members.get(accountId, email), accountId, email, event);
    if (decision.kind === 'unknown-member') return { outcome: 'ignored', detail: 'unknown member' };
    if (decision.kind === 'unchanged' || (await deps.members.save(decision.member, decision.changes, decision.create))) member = decision.member;
  }

  if (event.email) await deps.ledger.put(accountId, linkKey(event.memberId), { email });
  if (!history.some((m) => m.status === 'active')) await inviteOrRevoke(deps, accountId, email, event, member, history.length > 0);
  const runId = await startOnboardingIfNewlyPaying(deps, accountId, member);
  return { outcome: 'applied', ...(runId ? { detail: `onboarding ${runId}` } : {}) };
}

/** Who may revoke an invitation without it counting as the account's decision: the sync itself, and a failed e-mail. */
const NOT_A_DECISION = new Set(['membership-sync', 'undelivered']);

/**
 * A synced person who has not joined: invited while the provider has them,
 * their open invitation revoked when it deletes them. The account's own
 * decisions stand over the sync: a person it removed (or who left), or whose
 * invitation someone revoked, is not invited again by a later event (their
 * profile edit at the membership service would otherwise undo the removal);
 * only the account's owners and admins can invite them again.
 */
async function inviteOrRevoke(deps: MembershipDeps, accountId: string, email: string, event: MembershipEvent, member: MembershipMember, wasMember: boolean): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const sent = (await deps.team.invitations.toEmail(email)).filter((i) => i.account_id === accountId);
  const open = sent.find((i) => isOpen(i, now));
  if (member.status === 'removed' || member.membership?.status === 'deleted') {
    if (open) await deps.team.invitations.revoke(open.id, 'membership-sync', now);
    return;
  }
  if (open) return;
  if (wasMember || sent.some((i) => i.status === 'revoked' && !NOT_A_DECISION.has(i.revoked_by ?? ''))) {
    deps.log.info('a synced person the account removed, or whose invitation it revoked, was not invited again', { accountId, memberId: event.memberId });
    return;
  }
  const account = await deps.accounts.getAccount(accountId);
  // The store decides, as it writes: one open invitation per address however deliveries interleave, and
  // none for a person the account removed or turned away meanwhile.
  const issued = await issue(
    deps.team,
    { accountId, companyName: account?.company_name, email, role: 'member', invitedBy: { kind: 'membership-sync', provider: 'memberstack', memberId: event.memberId } },
    { keepIfUnsent: deps.log, unlessBarred: true },
  );
  if (!issued.opened && issued.why !== 'pending') {
    deps.log.info('a synced person the account removed, or whose invitation it revoked, was not invited again', { accountId, memberId: event.memberId });
  }
}

/**
 * A member who pays, and has not started an onboarding yet, starts the
 * account's: beginOnboarding with an intake made of the account's stored
 * details, so the run id is the one onboarding-v2 gives the same details, and
 * an account onboarded already joins its finished run instead of running again.
 */
async function startOnboardingIfNewlyPaying(deps: MembershipDeps, accountId: string, member: MembershipMember): Promise<string | undefined> {
  if (!member.membership?.paying || member.membership.onboarding_run || member.status === 'removed') return undefined;
  const account = await deps.accounts.getAccount(accountId);
  if (!account?.company_name) {
    deps.log.warn('a paying member cannot start onboarding: the account has no company name', { accountId });
    return undefined;
  }
  // The account's contact, when that is a member of this account; else the paying member.
  const contact = account.contact_email && (await deps.accounts.getMember(accountId, account.contact_email)) ? account.contact_email : member.email;
  const intake = intakeOf(account, contact, account.company_name);
  const run = await beginOnboarding(deps.onboarding, accountId, intake);
  await deps.members.markOnboardingStarted(accountId, member.email, run.runId);
  return run.runId;
}
