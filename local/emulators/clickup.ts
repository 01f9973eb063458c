// ClickUp API v2 as our task-tool adapter calls it (vendor-contracts §1):
// personal token in Authorization (no "Bearer"), folders and lists whose names
// must be unique under their parent (archived ones included), tasks paged by
// 100, and 429s carrying X-RateLimit-Reset in Unix seconds. A task's
// description is written as `markdown_content`, which takes precedence over
// `description` (the request schemas of createTask and updateTask in
// ../shared/vendor-apis/clickup.json), and read back as `description`, or as
// `markdown_description` with include_markdown_description=true. A task is
// archived or restored by updateTask's `archived` (its request schema in
// clickup.json); getTasks answers either the archived tasks (archived=true) or
// the others, never both (AutoIDM/tap-clickup PR #81 lists them in two passes
// for that reason), and a list's archived flag is its own: its tasks keep
// theirs (AutoIDM/tap-clickup issue #99).
import { Hono, type Context } from 'hono';
import { declaredOnly, type Declaration, type Fields } from './declared.ts';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const CLICKUP_TOKEN = 'pk_local_emulator_token';
export const CLICKUP_SPACE = '90000001';

interface Folder {
  id: string;
  name: string;
  space_id: string;
  archived: boolean;
}
interface List {
  id: string;
  name: string;
  folder_id: string;
  archived: boolean;
  content?: string;
}
interface Task {
  id: string;
  name: string;
  list_id: string;
  description?: string;
  /** What markdown_content set; description holds the same text. */
  markdown?: string;
  status: string;
  tags: string[];
  priority?: number | null;
  due_date?: string | null;
  /** Absent in state saved before tasks could be archived: not archived. */
  archived?: boolean;
  url: string;
  date_created: string;
  date_updated: string;
}
interface State {
  seq: number;
  folders: Folder[];
  lists: List[];
  tasks: Task[];
}

const empty = (): State => ({ seq: 1000, folders: [], lists: [], tasks: [] });
const err = (c: Context, status: 400 | 401 | 404, message: string, ecode: string) => c.json({ err: message, ECODE: ecode }, status);

export const CLICKUP_DIFFERENCES = [
  'Refuses (400, ECODE LOCAL_UNDECLARED) any route, query parameter or body field its published OpenAPI does not declare for the operations we call; the real API ignores unknown fields, so a misspelt one would silently do nothing there.',
  'An unknown route is a JSON 404 (ECODE LOCAL_UNDECLARED); the real API may answer such a route with an HTML 404.',
  'Keeps markdown_content as given and answers it as both description and markdown_description; the real API renders the markdown to plain text for description.',
  'One workspace and one space; statuses are free text; tags need not exist in the space.',
  'Only tasks can be archived (updateTask); no route that archives a list or folder is served, so every list is unarchived.',
  'Enforces the published limit per token (100 a minute unless CLICKUP_RATE_LIMIT says otherwise) in fixed windows that open at the token\'s first call; how ClickUp places its windows is not published.',
];

// The operations our adapter calls, with what ClickUp's OpenAPI (clickup.json) declares for each.
const TASK_QUERY = ['custom_task_ids', 'team_id'];
const TASK_FIELDS: Fields = {
  name: 'any', description: 'any', markdown_content: 'any', assignees: 'any', group_assignees: 'any', archived: 'any', tags: 'any',
  status: 'any', priority: 'any', due_date: 'any', due_date_time: 'any', time_estimate: 'any', start_date: 'any', start_date_time: 'any',
  points: 'any', notify_all: 'any', parent: 'any', links_to: 'any', check_required_custom_fields: 'any', custom_fields: 'any', custom_item_id: 'any',
};
const { notify_all: _n, links_to: _l, check_required_custom_fields: _r, custom_fields: _f, tags: _t, ...UPDATE_FIELDS } = TASK_FIELDS;
const clickupApi = (refuse: Declaration['refuse']): Declaration => ({
  base: '/clickup/api/v2',
  refuse,
  operations: [
    { method: 'GET', path: '/space/:space/folder', query: ['archived'] },
    { method: 'POST', path: '/space/:space/folder', body: { name: 'any' } },
    { method: 'GET', path: '/folder/:folder/list', query: ['archived'] },
    {
      method: 'POST',
      path: '/folder/:folder/list',
      body: { name: 'any', content: 'any', markdown_content: 'any', due_date: 'any', due_date_time: 'any', priority: 'any', assignee: 'any', status: 'any' },
    },
    {
      method: 'GET',
      path: '/list/:list/task',
      query: [
        'archived', 'include_markdown_description', 'page', 'order_by', 'reverse', 'subtasks', 'statuses', 'include_closed', 'assignees', 'watchers',
        'tags', 'due_date_gt', 'due_date_lt', 'date_created_gt', 'date_created_lt', 'date_updated_gt', 'date_updated_lt', 'date_done_gt',
        'date_done_lt', 'custom_fields', 'custom_field', 'custom_items',
      ],
    },
    { method: 'POST', path: '/list/:list/task', query: TASK_QUERY, body: TASK_FIELDS },
    { method: 'PUT', path: '/task/:task', query: TASK_QUERY, body: { ...UPDATE_FIELDS, watchers: 'any' } },
  ],
});

type TaskBody = {
  name?: string;
  description?: string;
  markdown_content?: string;
  status?: string;
  priority?: number | null;
  due_date?: number | null;
  due_date_time?: boolean;
  archived?: boolean;
};

/** markdown_content, when sent, wins over description. */
const describedBy = (body: TaskBody): Pick<Task, 'description' | 'markdown'> =>
  body.markdown_content !== undefined ? { description: body.markdown_content, markdown: body.markdown_content } : { description: body.description };


/**
 * A due date sent without due_date_time: true has no time of day: ClickUp sets it to 4 am in the
 * time zone of the user who set it (developer.clickup.com, "Date formatting"). The emulator's
 * token belongs to a user in UTC.
 */
const dueDateOf = (at: number, withTime: boolean | undefined) => String(withTime === true ? at : new Date(at).setUTCHours(4, 0, 0, 0));
export function clickupEmulator(): VendorEmulator {
  let state = empty();
  const nextId = () => String(++state.seq);
  const app = new Hono().basePath('/clickup/api/v2');

  app.use('*', async (c, next) => {
    if (c.req.header('authorization') !== CLICKUP_TOKEN) return err(c, 401, 'Token invalid', 'OAUTH_025');
    await next();
  });
  app.use(
    '*',
    declaredOnly(
      clickupApi((c, undeclared) =>
        undeclared.kind === 'operation'
          ? err(c, 404, 'Route not found', 'LOCAL_UNDECLARED')
          : err(c, 400, `Undeclared ${undeclared.kind === 'query' ? `query parameter ${undeclared.name}` : `field ${undeclared.path.join('.')}`}`, 'LOCAL_UNDECLARED'),
      ),
    ),
  );

  const listView = (l: List) => ({ id: l.id, name: l.name, archived: l.archived, folder: { id: l.folder_id } });
  const folderView = (f: Folder) => ({
    id: f.id,
    name: f.name,
    archived: f.archived,
    space: { id: f.space_id },
    lists: state.lists.filter((l) => l.folder_id === f.id && !l.archived).map(listView),
  });
  const taskView = (t: Task, withMarkdown = false) => ({
    id: t.id,
    name: t.name,
    description: t.description ?? '',
    ...(withMarkdown ? { markdown_description: t.markdown ?? t.description ?? '' } : {}),
    status: { status: t.status },
    tags: t.tags.map((name) => ({ name })),
    priority: t.priority ?? null,
    due_date: t.due_date ?? null,
    archived: t.archived === true,
    list: { id: t.list_id },
    url: t.url,
    date_created: t.date_created,
    date_updated: t.date_updated,
  });
  const archivedParam = (c: Context) => c.req.query('archived') === 'true';

  app.get('/space/:space/folder', (c) => {
    if (c.req.param('space') !== CLICKUP_SPACE) return err(c, 404, 'Space not found', 'ACCESS_001');
    const archived = archivedParam(c);
    return c.json({ folders: state.folders.filter((f) => f.space_id === CLICKUP_SPACE && f.archived === archived).map(folderView) });
  });

  app.post('/space/:space/folder', async (c) => {
    if (c.req.param('space') !== CLICKUP_SPACE) return err(c, 404, 'Space not found', 'ACCESS_001');
    const { name } = (await c.req.json().catch(() => ({}))) as { name?: string };
    if (!name?.trim()) return err(c, 400, 'Folder name invalid', 'INPUT_005');
    if (state.folders.some((f) => f.space_id === CLICKUP_SPACE && f.name.toLowerCase() === name.trim().toLowerCase())) {
      return err(c, 400, 'Folder name taken', 'CAT_014');
    }
    const folder: Folder = { id: nextId(), name: name.trim(), space_id: CLICKUP_SPACE, archived: false };
    state.folders.push(folder);
    return c.json(folderView(folder));
  });

  app.get('/folder/:folder/list', (c) => {
    const folder = state.folders.find((f) => f.id === c.req.param('folder'));
    if (!folder) return err(c, 404, 'Folder not found', 'CAT_004');
    const archived = archivedParam(c);
    return c.json({ lists: state.lists.filter((l) => l.folder_id === folder.id && l.archived === archived).map(listView) });
  });

  app.post('/folder/:folder/list', async (c) => {
    const folder = state.folders.find((f) => f.id === c.req.param('folder'));
    if (!folder) return err(c, 404, 'Folder not found', 'CAT_004');
    const { name, content } = (await c.req.json().catch(() => ({}))) as { name?: string; content?: string };
    if (!name?.trim()) return err(c, 400, 'List name invalid', 'INPUT_005');
    if (state.lists.some((l) => l.folder_id === folder.id && l.name.toLowerCase() === name.trim().toLowerCase())) {
      return err(c, 400, 'List name taken', 'SUBCAT_016');
    }
    const list: List = { id: nextId(), name: name.trim(), folder_id: folder.id, archived: false, content };
    state.lists.push(list);
    return c.json(listView(list));
  });

  app.get('/list/:list/task', (c) => {
    const list = state.lists.find((l) => l.id === c.req.param('list'));
    if (!list) return err(c, 404, 'List not found', 'SUBCAT_002');
    const page = Number(c.req.query('page') ?? 0);
    const includeClosed = c.req.query('include_closed') === 'true';
    const archived = archivedParam(c);
    const all = state.tasks.filter((t) => t.list_id === list.id && (includeClosed || t.status !== 'closed') && (t.archived === true) === archived);
    const slice = all.slice(page * 100, page * 100 + 100);
    const withMarkdown = c.req.query('include_markdown_description') === 'true';
    return c.json({ tasks: slice.map((t) => taskView(t, withMarkdown)), last_page: page * 100 + 100 >= all.length });
  });

  app.post('/list/:list/task', async (c) => {
    const list = state.lists.find((l) => l.id === c.req.param('list'));
    if (!list) return err(c, 404, 'List not found', 'SUBCAT_002');
    const body = (await c.req.json().catch(() => ({}))) as TaskBody & { tags?: string[] };
    if (!body.name?.trim()) return err(c, 400, 'Task name invalid', 'INPUT_005');
    const id = `86${nextId()}`;
    const at = String(Date.now());
    const task: Task = {
      id,
      name: body.name.trim(),
      list_id: list.id,
      ...describedBy(body),
      status: body.status ?? 'to do',
      tags: body.tags ?? [],
      priority: body.priority ?? null,
      due_date: body.due_date != null ? dueDateOf(body.due_date, body.due_date_time) : null,
      archived: body.archived === true,
      url: `https://app.clickup.com/t/${id}`,
      date_created: at,
      date_updated: at,
    };
    state.tasks.push(task);
    return c.json(taskView(task));
  });

  app.put('/task/:task', async (c) => {
    const task = state.tasks.find((t) => t.id === c.req.param('task'));
    if (!task) return err(c, 404, 'Task not found', 'ITEM_013');
    const body = (await c.req.json().catch(() => ({}))) as TaskBody;
    if (body.name !== undefined) task.name = body.name;
    if (body.markdown_content !== undefined || body.description !== undefined) Object.assign(task, { markdown: undefined }, describedBy(body));
    if (body.status !== undefined) task.status = body.status;
    if (body.due_date !== undefined) task.due_date = body.due_date === null ? null : dueDateOf(body.due_date, body.due_date_time);
    if (body.archived !== undefined) task.archived = body.archived === true;
    task.date_updated = String(Date.now());
    return c.json(taskView(task));
  });

  return {
    vendor: 'clickup',
    prefixes: ['/clickup'],
    app,
    records: {
      // Folders with their lists and tasks: what a person would see in ClickUp.
      tasks: () =>
        state.folders.map((f) => ({
          id: f.id,
          name: f.name,
          archived: f.archived,
          lists: state.lists
            .filter((l) => l.folder_id === f.id)
            .map((l) => ({ id: l.id, name: l.name, tasks: state.tasks.filter((t) => t.list_id === l.id).map((t) => taskView(t)) })),
        })),
    },
    failure: (c) => c.json({ err: 'Internal server error', ECODE: 'SHARD_001' }, 500),
    throttle: (c, seconds) =>
      c.json({ err: 'Rate limit reached', ECODE: 'APP_002' }, 429, {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000 + seconds)),
      }),
    // Per token, per minute: 100 on the Free, Unlimited and Business plans, with X-RateLimit-* on every
    // answer and the reset in Unix seconds (developer.clickup.com/docs/rate-limits; vendor-contracts §1).
    rateLimit: {
      setting: 'CLICKUP_RATE_LIMIT',
      published: { limit: 100, windowSeconds: 60 },
      subject: (c) => c.req.header('authorization'),
      headers: ({ limit, remaining, resetAt }) => ({
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
      }),
    },
    reset: () => (state = empty()),
    differences: CLICKUP_DIFFERENCES,
    dump: () => state,
    load: (saved) => (state = saved as State),
  };
}

export const clickupVendor: LocalVendor = {
  create: () => clickupEmulator(),
  env: (ctx) => ({
    CLICKUP_API_TOKEN: CLICKUP_TOKEN,
    CLICKUP_API_BASE: `${ctx.hostUrl}/clickup/api/v2`,
    CLICKUP_SPACE_ID: CLICKUP_SPACE,
  }),
};
