// Erasing a closed account's personal data (a GDPR erasure request), where
// the service put it: the vendors that hold it first, then the identity
// provider's users who belong to no other account, then our own tables. What
// was done where is recorded on the account as it goes, so a vendor that fails
// leaves a record to finish from: calling again skips what is done. The
// account row stays, stripped, as the audit record (lifecycle.ts).
import type { Account, AccountStore, ErasureRecord } from '../accounts/accounts.ts';
import type { LifecycleStore } from '../accounts/lifecycle.ts';
import { Conflict, NotFound } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import type { Crm } from '../integrations/crm.ts';
import type { Storage } from '../integrations/storage.ts';
import type { TaskTool } from '../integrations/task-tool.ts';
import { describeFailure } from '../provisioning/integration-step.ts';
import type { ArchivedTree } from '../provisioning/archived.ts';
import type { Ledger } from '../provisioning/ledger.ts';

/** The people an account's records name. */
export interface People {
  emails: string[];
  names: string[];
  userIds: string[];
}

/** Our own records of an account's people (dynamodb-personal-records.ts holds the inventory). */
export interface PersonalRecords {
  peopleOf(accountId: string): Promise<People>;
  /** The task-tool tasks of the account's bookings: their names hold the invitees'. */
  bookingTaskIds(accountId: string): Promise<string[]>;
  /** How many accounts besides this one the user is an active member of. */
  activeMembershipsElsewhere(userId: string, accountId: string): Promise<number>;
  /** Deletes every record of the account that holds personal data; how many items, per table. */
  eraseRecords(account: Account, people: People): Promise<Record<string, number>>;
}

export interface ErasureDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  lifecycle: Pick<LifecycleStore, 'noteErasure' | 'erase'>;
  records: PersonalRecords;
  ledger: Pick<Ledger, 'get'>;
  crm: Crm | null;
  storage: Storage | null;
  taskTool: TaskTool | null;
  identity: Pick<IdentityProvider, 'deleteUser'>;
  now?: () => Date;
}

type Place = ErasureRecord['places'][string];
const done = (place: Place | undefined) => place !== undefined && place.outcome !== 'failed';

/** Erases the account's personal data; `complete` false when a place failed (its record says which; call again). */
export async function eraseAccount(
  deps: ErasureDeps,
  accountId: string,
  request: { by: string; storage: boolean },
): Promise<{ complete: boolean; status: 'erased' | 'closed'; record: ErasureRecord }> {
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new NotFound('No such account');
  if (account.status === 'erased' && account.erasure) return { complete: true, status: 'erased', record: account.erasure };
  if (account.status !== 'closed') throw new Conflict(`Only a closed account can be erased; this one is ${account.status}: close it first`, 'account_not_closed');
  const at = (deps.now?.() ?? new Date()).toISOString();
  const record: ErasureRecord = { requested_by: request.by, requested_at: account.erasure?.requested_at ?? at, places: { ...account.erasure?.places } };
  const people = await deps.records.peopleOf(accountId);
  const place = async (name: string, work: () => Promise<Place>) => {
    if (done(record.places[name])) return;
    try {
      record.places[name] = await work();
    } catch (error) {
      record.places[name] = { outcome: 'failed', detail: describeFailure(name, error).message };
    }
  };

  await place('close', async () => {
    const lead = await deps.ledger.get<{ id: string }>(accountId, 'close#lead');
    if (!deps.crm) return { outcome: 'skipped', detail: 'Close is not configured in this deployment' };
    if (!lead) return { outcome: 'skipped', detail: 'No Close lead was found or made for this account' };
    const { contacts } = await deps.crm.deleteContacts(lead.id);
    return { outcome: 'erased', detail: `the lead's contacts deleted (${contacts} now); its company name and activities stay with the agency` };
  });
  // A folder an earlier call kept (it failed elsewhere) is deleted when this call asks for it.
  if (request.storage && record.places.dropbox?.outcome === 'kept') delete record.places.dropbox;
  await place('dropbox', async () => {
    if (!deps.storage) return { outcome: 'skipped', detail: 'Dropbox is not configured in this deployment' };
    if (!request.storage) return { outcome: 'kept', detail: 'the archived folder is kept: erase with storage true to delete it' };
    const archived = await deps.ledger.get<ArchivedTree>(accountId, 'dropbox#archived');
    const tree = await deps.ledger.get<{ path: string }>(accountId, 'dropbox#tree');
    const path = archived && !archived.restored ? archived.to : tree?.path;
    if (!path) return { outcome: 'skipped', detail: 'No Dropbox folder was made for this account' };
    await deps.storage.deleteFolder(path);
    return { outcome: 'erased', detail: "the client's folder deleted (Dropbox keeps deleted files restorable for its own retention period)" };
  });
  await place('clickup', async () => {
    const tasks = await deps.records.bookingTaskIds(accountId);
    if (!deps.taskTool) return { outcome: 'skipped', detail: 'ClickUp is not configured in this deployment' };
    for (const id of tasks) await deps.taskTool.updateTask(id, { name: 'Call (details erased)', description: 'The details of this booking were erased.' });
    return { outcome: 'erased', detail: `${tasks.length} booking tasks stripped of who booked; the archived project tasks hold no personal data` };
  });
  record.places.resend ??= { outcome: 'kept', detail: "Resend's sending log and suppression list stay as they are: a suppressed address stays suppressed" };
  record.places.slack ??= { outcome: 'kept', detail: "the team's notices in Slack are the agency's own; delete them there if asked" };
  await place('supabase', async () => {
    let deleted = 0;
    let kept = 0;
    for (const userId of people.userIds) {
      if ((await deps.records.activeMembershipsElsewhere(userId, accountId)) > 0) kept++;
      else if (await deps.identity.deleteUser(userId)) deleted++;
    }
    return { outcome: 'erased', detail: `${deleted} sign-in users deleted; ${kept} kept, as they belong to other accounts` };
  });

  if (Object.values(record.places).some((p) => p.outcome === 'failed')) {
    await deps.lifecycle.noteErasure(accountId, record);
    return { complete: false, status: 'closed', record };
  }
  for (const [table, count] of Object.entries(await deps.records.eraseRecords(account, people))) {
    record.places[`table:${table}`] = { outcome: 'erased', detail: `${count} items deleted` };
  }
  record.places['table:accounts'] = { outcome: 'erased', detail: 'contact and company details removed; this record is what is left' };
  const erased: ErasureRecord = { ...record, erased_at: at };
  await deps.lifecycle.erase(accountId, erased);
  return { complete: true, status: 'erased', record: erased };
}
