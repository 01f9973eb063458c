import type { AccountStore } from '../../accounts/accounts.ts';
import type { TaskTool } from '../../integrations/task-tool.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { oneLine } from '../../text.ts';
import { skipped, type StepResult } from '../../provisioning/outcomes.ts';
import type { ArchivedFolder } from '../../provisioning/archived.ts';
import { requireAccount } from './account.ts';

interface StarterTask {
  key: string;
  name: string;
  description: string;
}

/** The project every client gets: three lists with their starter tasks. */
export const PROJECT_TEMPLATE: { key: 'onboarding' | 'site' | 'maintenance'; name: string; tasks: StarterTask[] }[] = [
  {
    key: 'onboarding',
    name: 'Onboarding',
    tasks: [
      { key: 'kickoff', name: 'Kick-off call', description: 'Book and hold the kick-off call: goals, audience, timeline.' },
      { key: 'assets', name: 'Collect brand assets', description: 'Logo files, colours, fonts and photography, into the shared storage folder.' },
      { key: 'access', name: 'Get website and analytics access', description: 'Hosting, CMS, domain registrar, Google Analytics and Search Console.' },
      { key: 'kpis', name: 'Agree goals and KPIs', description: 'Write down what success means for the first 90 days.' },
    ],
  },
  {
    key: 'site',
    name: 'Site',
    tasks: [
      { key: 'audit', name: 'Site audit', description: 'Performance, SEO and accessibility baseline of the current site.' },
      { key: 'sitemap', name: 'Sitemap and content plan', description: 'Pages, their purpose, and who writes what.' },
      { key: 'design', name: 'Design review', description: 'Review the designs with the client and record decisions.' },
      { key: 'launch', name: 'Launch checklist', description: 'Redirects, analytics, forms, backups, DNS.' },
    ],
  },
  {
    key: 'maintenance',
    name: 'Maintenance',
    tasks: [
      { key: 'updates', name: 'Monthly updates', description: 'Core, theme and plugin updates, with a backup first.' },
      { key: 'monitoring', name: 'Backups and uptime monitoring', description: 'Set up and verify backups and uptime alerts.' },
      { key: 'report', name: 'Monthly performance report', description: 'Traffic, leads and speed, sent to the client each month.' },
    ],
  },
];

export interface TaskToolDeps {
  taskTool: TaskTool | null;
  ledger: Ledger;
  accounts: Pick<AccountStore, 'getAccount'>;
}

/** The client's project in the task tool: a folder, its lists and their starter tasks; only what is missing is created. */
export async function provisionTaskTool(deps: TaskToolDeps, input: StepInput): Promise<StepResult> {
  const { taskTool, ledger } = deps;
  if (!taskTool) return skipped('ClickUp is not configured in this deployment');
  const account = await requireAccount(deps.accounts, input.accountId);
  const folderName = `${oneLine(account.company_name) || input.portalSlug} (${input.portalSlug})`;
  const entry = (resource: string) => ({ accountId: account.id, resource, maker: input.runId });
  const folder = await remembered(ledger, entry('clickup#folder'), async () => {
    const made = await taskTool.ensureFolder(folderName);
    return { id: made.id, name: made.name };
  });
  // A client who left and came back: the tasks their offboarding archived are restored, not made again.
  const archived = await ledger.get<ArchivedFolder>(account.id, 'clickup#archived');
  const restored = archived && !archived.restored ? (await taskTool.setFolderArchived(folder.id, false)).tasks : undefined;
  if (archived && !archived.restored) await ledger.put(account.id, 'clickup#archived', { ...archived, restored: true });

  const lists = await Promise.all(
    PROJECT_TEMPLATE.map(async (template) => {
      let listIsNew = false; // made by this call: it holds no task yet, so its tasks need no listing
      const list = await remembered(ledger, entry(`clickup#list#${template.key}`), async () => {
        const made = await taskTool.ensureList(folder.id, template.name);
        listIsNew = !made.adopted;
        return { id: made.id, name: made.name };
      });
      // The list's starter tasks are one entry: ensureTasks finds tasks by name before creating,
      // so a batch cut short is finished, not repeated, by the next attempt.
      let ensured = 0; // tasks found or created by this call (0: the ledger had them)
      await remembered(ledger, entry(`clickup#tasks#${template.key}`), async () => {
        const refs = await taskTool.ensureTasks(
          list.id,
          template.tasks.map((t) => ({ name: t.name, description: t.description, tags: [template.key] })),
          { listIsNew },
        );
        ensured = refs.length;
        return { tasks: Object.fromEntries(template.tasks.map((task, i) => [task.key, { id: refs[i]!.id, url: refs[i]!.url }])) };
      });
      return [template.key, { id: list.id, tasks: template.tasks.length, ensured }] as const;
    }),
  );
  return {
    outcome: 'success',
    details: { folderId: folder.id, folderName, lists: Object.fromEntries(lists), ...(restored === undefined ? {} : { restoredTasks: restored }) },
  };
}
