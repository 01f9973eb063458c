import type { AccountStore } from '../../accounts/accounts.ts';
import type { Storage } from '../../integrations/storage.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import type { ArchivedTree } from '../../provisioning/archived.ts';
import { STORAGE_FOLDERS } from '../../provisioning/storage-tree.ts';
import { requireAccount } from './account.ts';

export interface StorageDeps {
  storage: Storage | null;
  ledger: Ledger;
  accounts: AccountStore;
  rootPath: string;
  now?: () => Date;
}

/**
 * The client's folder tree at {root}/{slug} with its ten subfolders, and a
 * shared link to it, stored on the account (for its members to see) and on
 * its member records (the contract's storage_link, storage_path,
 * storage_created_at) for the portal to show.
 */
export async function provisionStorageTree(deps: StorageDeps, input: StepInput): Promise<StepResult> {
  const { storage, ledger } = deps;
  if (!storage) return skipped('Dropbox is not configured in this deployment');
  const account = await requireAccount(deps.accounts, input.accountId);
  const path = `${deps.rootPath}/${input.portalSlug}`;
  // A client who left and came back: their folder is moved back from the archive, and given a new link (the old one was revoked).
  const archived = await ledger.get<ArchivedTree>(account.id, 'dropbox#archived');
  if (archived && !archived.restored) {
    await storage.moveFolder(archived.to, archived.from);
    await ledger.put(account.id, 'dropbox#link', { url: await storage.sharedLink(archived.from) });
    await ledger.put(account.id, 'dropbox#archived', { ...archived, restored: true });
  }
  const tree = await remembered(ledger, { accountId: account.id, resource: 'dropbox#tree', maker: input.runId }, async () => {
    await storage.ensureFolders([path, ...STORAGE_FOLDERS.map((name) => `${path}/${name}`)]);
    return { path, folders: STORAGE_FOLDERS.length, createdAt: (deps.now?.() ?? new Date()).toISOString() };
  });
  const link = await remembered(ledger, { accountId: account.id, resource: 'dropbox#link', maker: input.runId }, async () => ({ url: await storage.sharedLink(tree.path) }));
  await deps.accounts.saveAccountDetails(account.id, { storage_path: tree.path, storage_link: link.url });
  for (const member of await deps.accounts.membersOf(account.id)) {
    await deps.accounts.setMemberStorage(account.id, member.email, { link: link.url, path: tree.path, createdAt: tree.createdAt });
  }
  return { outcome: 'success', details: { path: tree.path, link: link.url, subfolders: tree.folders } };
}
