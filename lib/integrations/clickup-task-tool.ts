// ClickUp API v2 (vendor-contracts §1). ClickUp has no idempotency keys and
// refuses a second folder or list of the same name under one parent (archived
// ones included), so "ensure" is: create, and on "name taken" list (also
// archived), match the name case-insensitively and adopt. Tasks have no such
// guard: they are listed before the missing ones are created, unless their
// list was just made. A folder cannot be archived through the API (updateFolder
// takes only a name), so a client's folder is archived task by task
// (updateTask's `archived`).
import { VendorError } from '../errors.ts';
import { vendorHttp, type VendorHttp } from './http-client.ts';
import type { RetryPolicy } from './retry.ts';
import type { Container, NewTask, TaskPatch, TaskRef, TaskTool } from './task-tool.ts';

interface Settings {
  token: string;
  apiBase: string;
  spaceId: string;
}

const NAME_TAKEN = new Set(['CAT_014', 'SUBCAT_016']);
type Named = { id: string; name: string };
type ClickUpTask = { id: string; name: string; url?: string; status?: { status?: string } };
/** Pages of tasks a list is read to, at 100 a page: far beyond any client's list. */
const TASK_PAGES = 50;

export function clickupTaskTool(settings: Settings, policy: RetryPolicy & { timeoutMs: number }): TaskTool {
  const http: VendorHttp = vendorHttp({
    vendor: 'clickup',
    baseUrl: settings.apiBase,
    headers: () => ({ authorization: settings.token }),
    policy,
    // ClickUp sends no Retry-After; X-RateLimit-Reset is the Unix second the window reopens.
    retryHint: (res) => {
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : undefined;
    },
    errorCode: (body) => (body as { ECODE?: string } | undefined)?.ECODE,
  });

  const byName = (items: Named[], name: string) => items.find((i) => i.name.trim().toLowerCase() === name.trim().toLowerCase());

  async function ensureNamed(kind: 'folder' | 'list', listPath: string, createPath: string, name: string): Promise<Container> {
    const created = await http<Named & { ECODE?: string }>(`create ${kind} "${name}"`, {
      method: 'POST',
      path: createPath,
      json: { name },
      accept: [400],
      // A lost answer is not retried here: the step runs again, and its create meets the name taken.
      repeatable: false,
    });
    if (created.status !== 400) return { id: String(created.body.id), name: created.body.name, adopted: false };
    // Made before (an earlier attempt, a concurrent run, a reopened account): adopt it.
    const adopted = NAME_TAKEN.has(created.body.ECODE ?? '') ? await find(kind, listPath, name) : undefined;
    if (!adopted) throw VendorError.rejected('clickup', `create ${kind} "${name}"`, { status: 400, vendorCode: created.body.ECODE });
    return { id: String(adopted.id), name: adopted.name, adopted: true };
  }

  async function find(kind: 'folder' | 'list', listPath: string, name: string): Promise<Named | undefined> {
    for (const archived of [false, true]) {
      const res = await http<Record<string, Named[]>>(`find ${kind} "${name}"`, { path: `${listPath}?archived=${archived}` });
      const found = byName(res.body[`${kind}s`] ?? [], name);
      if (found) return found;
    }
    return undefined;
  }

  const toRef = (t: ClickUpTask): TaskRef => ({ id: String(t.id), name: t.name, url: t.url, status: t.status?.status });
  // markdown_content is what createTask and updateTask declare (it wins over description); the
  // markdown_description of an old example is not a request field, and ClickUp ignores it.
  const taskBody = (task: NewTask) => ({
    name: task.name,
    markdown_content: task.description,
    tags: task.tags,
    ...dueAt(task.dueDate),
    priority: task.priority,
  });

  /** Every task of the list, open or closed, subtasks included, whose archived flag is `archived`. */
  async function listTasks(listId: string, options: { archived?: boolean } = {}): Promise<ClickUpTask[]> {
    const tasks: ClickUpTask[] = [];
    const archived = options.archived === undefined ? '' : `&archived=${options.archived}`;
    for (let page = 0; page < TASK_PAGES; page++) {
      const res = await http<{ tasks: ClickUpTask[]; last_page?: boolean }>('list tasks', {
        path: `/list/${listId}/task?page=${page}&include_closed=true&subtasks=true${archived}`,
      });
      tasks.push(...res.body.tasks);
      if (res.body.last_page !== false || res.body.tasks.length < 100) break;
    }
    return tasks;
  }

  async function createTask(listId: string, task: NewTask): Promise<TaskRef> {
    const res = await http<ClickUpTask>(`create task "${task.name}"`, {
      method: 'POST',
      path: `/list/${listId}/task`,
      json: taskBody(task),
      repeatable: false,
    });
    return toRef(res.body);
  }

  return {
    ensureFolder: (name) => ensureNamed('folder', `/space/${settings.spaceId}/folder`, `/space/${settings.spaceId}/folder`, name),
    ensureList: (folderId, name) => ensureNamed('list', `/folder/${folderId}/list`, `/folder/${folderId}/list`, name),
    createTask,

    async ensureTasks(listId, tasks, options = {}) {
      const existing = options.listIsNew ? [] : await listTasks(listId);
      const refs: TaskRef[] = [];
      for (const task of tasks) {
        const found = existing.find((t) => t.name.trim().toLowerCase() === task.name.trim().toLowerCase());
        refs.push(found ? toRef(found) : await createTask(listId, task));
      }
      return refs;
    },

    async updateTask(taskId, patch: TaskPatch) {
      const res = await http<ClickUpTask>('update task', {
        method: 'PUT',
        path: `/task/${taskId}`,
        json: {
          name: patch.name,
          markdown_content: patch.description,
          status: patch.status,
          ...dueAt(patch.dueDate),
        },
      });
      return toRef(res.body);
    },

    // The folder's lists, archived ones too (a list's tasks keep their own flag), then each list's
    // tasks not yet in the wanted state, all read before any is changed so that no page shifts under
    // the reading. Tasks already so are left alone: a second call, or one after a partial run, only
    // finishes what is left.
    async setFolderArchived(folderId, archived) {
      const lists: Named[] = [];
      for (const listed of [false, true]) {
        const res = await http<{ lists: Named[] }>('list the folder\'s lists', { path: `/folder/${folderId}/list?archived=${listed}` });
        lists.push(...res.body.lists);
      }
      let changed = 0;
      for (const list of lists) {
        for (const task of await listTasks(String(list.id), { archived: !archived })) {
          await http(archived ? 'archive a task' : 'restore a task', { method: 'PUT', path: `/task/${task.id}`, json: { archived } });
          changed += 1;
        }
      }
      return { tasks: changed };
    },
  };
}

/**
 * A due date here is an instant (a call's start), so it goes with due_date_time: true. Without it,
 * ClickUp keeps only the day, at 4 am in the time zone of the token's user (developer.clickup.com,
 * "Date formatting"). null clears the date.
 */
function dueAt(at: number | null | undefined) {
  return typeof at === 'number' ? { due_date: at, due_date_time: true } : { due_date: at };
}
