import type { AccountStore } from '../../accounts/accounts.ts';
import type { LifecycleStore } from '../../accounts/lifecycle.ts';
import type { Storage } from '../../integrations/storage.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import type { ArchivedTree } from '../../provisioning/archived.ts';
import type { Ledger } from '../../provisioning/ledger.ts';

export interface ArchiveStorageDeps {
  storage: Storage | null;
  ledger: Ledger;
  accounts: Pick<AccountStore, 'getAccount' | 'membersOf'>;
  lifecycle: Pick<LifecycleStore, 'forgetStorageLink'>;
  /** Where closed clients' folders are kept (DROPBOX_ARCHIVE_PATH). */
  archivePath: string;
  now?: () => Date;
}


/**
 * Revokes every shared link to the client's folder (the account's and its
 * member records') and moves the folder under the archive path, whole.
 * Nothing is deleted: onboarding the account again moves it back and makes
 * a new link (provision-storage-tree).
 */
export async function archiveStorageTree(deps: ArchiveStorageDeps, input: StepInput): Promise<StepResult> {
  const { storage, ledger } = deps;
  if (!storage) return skipped('Dropbox is not configured in this deployment');
  const tree = await ledger.get<{ path: string }>(input.accountId, 'dropbox#tree');
  if (!tree) return skipped('Onboarding made no Dropbox folder for this account');
  const account = await deps.accounts.getAccount(input.accountId);
  const link = await ledger.get<{ url?: string }>(input.accountId, 'dropbox#link');
  const members = await deps.accounts.membersOf(input.accountId);
  const links = [...new Set([link?.url, account?.storage_link, ...members.map((m) => m.storage_link)].filter((url): url is string => Boolean(url)))];
  for (const url of links) await storage.revokeSharedLink(url);
  await deps.lifecycle.forgetStorageLink(input.accountId);

  const previous = await ledger.get<ArchivedTree>(input.accountId, 'dropbox#archived');
  const to = `${deps.archivePath}/${tree.path.split('/').at(-1)}`;
  if (!previous || previous.restored) {
    await storage.moveFolder(tree.path, to);
    const archived: ArchivedTree = { from: tree.path, to, archivedAt: (deps.now?.() ?? new Date()).toISOString(), runId: input.runId };
    await ledger.put(input.accountId, 'dropbox#archived', archived);
  }
  return { outcome: 'success', details: { revokedLinks: links.length, archivedTo: to } };
}
