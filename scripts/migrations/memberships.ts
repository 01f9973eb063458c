// From member records to memberships. Before memberships existed, a member
// record (then keyed by e-mail alone) was taken as "this address belongs to this
// account", and every flow trusted it. This turns those rows into the model
// where joining is an act of the person:
// - a creator's record (role owner: written when the person's own onboarding,
//   verification or checkout opened the account) becomes an owner membership
//   of the identity-provider user who holds that address, confirmed; with no
//   such user yet, an owner invitation to the address;
// - a record a membership sync wrote (role member) becomes a pending
//   invitation, never an active membership;
// - a removed member, or a record of an account that no longer exists, is left.
// Every step is idempotent (a membership joins once, an open invitation is not
// repeated), so the migration can run on a live table, be stopped anywhere,
// and be run again: it resumes after the last page it finished.
import type { AccountStore } from '../../lib/accounts/accounts.ts';
import type { MembershipStore } from '../../lib/accounts/memberships.ts';
import { issue, openInvitation, type TeamDeps } from '../../lib/accounts/team.ts';
import type { Logger } from '../../lib/log.ts';

/** A member record as the code before memberships wrote it. */
export interface LegacyMemberRecord {
  email: string;
  account_id: string;
  role: 'owner' | 'member';
  status?: string;
  user_id?: string;
  /** Present on rows a membership sync wrote or updated. */
  membership?: unknown;
}

export type MigrationOutcome = 'owner-joined' | 'owner-invited' | 'member-invited' | 'already-done' | 'left-alone';

export interface MigrationDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  memberships: Pick<MembershipStore, 'join' | 'ofEmail'>;
  /** Issues the invitations; without a mailer they wait, unsent, for the person to sign in (`me` lists them). */
  team: TeamDeps;
  /** Confirmed identity-provider users' ids by lower-cased address. */
  confirmedUserIds: Map<string, string>;
  log: Logger;
}

export async function migrateRecord(deps: MigrationDeps, row: LegacyMemberRecord): Promise<MigrationOutcome> {
  const email = row.email.toLowerCase();
  const accountId = row.account_id;
  const account = await deps.accounts.getAccount(accountId);
  if (!account || row.status === 'removed') return 'left-alone';
  const joined = (await deps.memberships.ofEmail(email)).filter((m) => m.status === 'active');
  if (joined.some((m) => m.account_id === accountId)) return 'already-done';

  if (row.role === 'owner') {
    const userId = row.user_id ?? deps.confirmedUserIds.get(email);
    if (userId) {
      const done = await deps.memberships.join({ accountId, userId, email, role: 'owner', via: 'migration' });
      return done.joined ? 'owner-joined' : 'already-done';
    }
  }
  if (await openInvitation(deps.team, accountId, email)) return 'already-done';
  const role = row.role === 'owner' ? 'owner' : 'member';
  await issue(deps.team, { accountId, companyName: account.company_name, email, role, invitedBy: { kind: 'migration' } }, { keepIfUnsent: deps.log });
  return role === 'owner' ? 'owner-invited' : 'member-invited';
}

/** The member records, a page at a time (a scan on DynamoDB). */
export interface RecordPages {
  page(after?: Record<string, unknown>): Promise<{ rows: LegacyMemberRecord[]; next?: Record<string, unknown> }>;
}

/** Where the migration stands between runs: the position after the last finished page, or done. */
export interface Checkpoint {
  load(): Promise<{ after?: Record<string, unknown>; done?: boolean } | undefined>;
  save(state: { after?: Record<string, unknown>; done?: boolean }): Promise<void>;
}

export async function migrateMemberships(deps: MigrationDeps, pages: RecordPages, checkpoint: Checkpoint): Promise<Record<MigrationOutcome, number>> {
  const counts: Record<MigrationOutcome, number> = { 'owner-joined': 0, 'owner-invited': 0, 'member-invited': 0, 'already-done': 0, 'left-alone': 0 };
  const saved = await checkpoint.load();
  if (saved?.done) return counts;
  let after = saved?.after;
  do {
    const { rows, next } = await pages.page(after);
    for (const row of rows) counts[await migrateRecord(deps, row)]++;
    after = next;
    await checkpoint.save(after ? { after } : { done: true });
  } while (after);
  return counts;
}
