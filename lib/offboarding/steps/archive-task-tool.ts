import type { TaskTool } from '../../integrations/task-tool.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import type { ArchivedFolder } from '../../provisioning/archived.ts';
import type { Ledger } from '../../provisioning/ledger.ts';

export interface ArchiveTaskToolDeps {
  taskTool: TaskTool | null;
  ledger: Ledger;
  now?: () => Date;
}


/**
 * Archives every task of the client's ClickUp folder (ClickUp's API archives
 * tasks, not folders). Nothing is deleted: onboarding the account again
 * restores them (provision-task-tool).
 */
export async function archiveTaskTool(deps: ArchiveTaskToolDeps, input: StepInput): Promise<StepResult> {
  if (!deps.taskTool) return skipped('ClickUp is not configured in this deployment');
  const folder = await deps.ledger.get<{ id: string }>(input.accountId, 'clickup#folder');
  if (!folder) return skipped('Onboarding made no ClickUp folder for this account');
  const { tasks } = await deps.taskTool.setFolderArchived(folder.id, true);
  const archived: ArchivedFolder = { folderId: folder.id, archivedAt: (deps.now?.() ?? new Date()).toISOString(), runId: input.runId };
  await deps.ledger.put(input.accountId, 'clickup#archived', archived);
  return { outcome: 'success', details: { folder: folder.id, archivedTasks: tasks } };
}
