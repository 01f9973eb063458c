import { beforeEach, describe, expect, it } from 'vitest';
import { clickupTaskTool } from '../../../lib/integrations/clickup-task-tool.ts';
import { clickupVendor } from '../../../local/emulators/clickup.ts';
import { countingPace, quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(clickupVendor);
const tool = (policy: Parameters<typeof clickupTaskTool>[1] = quickPolicy) =>
  clickupTaskTool({ token: emu.env.CLICKUP_API_TOKEN!, apiBase: emu.env.CLICKUP_API_BASE!, spaceId: emu.env.CLICKUP_SPACE_ID! }, policy);

describe('the ClickUp task tool', () => {
  beforeEach(() => emu.reset());

  it('creates a folder, a list and a task once, however often it is asked', async () => {
    const t = tool();
    for (let i = 0; i < 2; i++) {
      const folder = await t.ensureFolder('Acme (acme)');
      const list = await t.ensureList(folder.id, 'Onboarding');
      await t.ensureTasks(list.id, [
        { name: 'Kick-off call', description: '**Book** it', tags: ['onboarding'] },
        { name: 'Collect assets', description: 'x' },
      ]);
    }
    const folders = await emu.get('tasks');
    expect(folders).toHaveLength(1);
    expect(folders[0].lists).toHaveLength(1);
    expect(folders[0].lists[0].tasks).toEqual([
      expect.objectContaining({ name: 'Kick-off call', description: '**Book** it' }),
      expect.objectContaining({ name: 'Collect assets' }),
    ]);
  });

  it('matches names case-insensitively and adopts what concurrent runs created', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => tool().ensureFolder(i % 2 ? 'GLOBEX' : 'globex')));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await emu.get('tasks')).toHaveLength(1);
  });

  it('waits for X-RateLimit-Reset when throttled', async () => {
    await emu.fault({ vendor: 'clickup', mode: 'throttle', count: 1, retryAfterSeconds: 1 });
    expect((await tool().ensureFolder('Throttled')).name).toBe('Throttled');
  });

  it('fails transiently after its attempts when ClickUp keeps failing', async () => {
    await emu.fault({ vendor: 'clickup', mode: 'fail', count: 10 });
    const error = await tool().ensureFolder('Down').catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorUnavailable', vendor: 'clickup' });
    expect(error.context).toMatchObject({ status: 500, vendorCode: 'SHARD_001' });
    await emu.reset();
  });

  it('is refused with a wrong token', async () => {
    const bad = clickupTaskTool({ token: 'pk_wrong', apiBase: emu.env.CLICKUP_API_BASE!, spaceId: emu.env.CLICKUP_SPACE_ID! }, quickPolicy);
    const error = await bad.ensureFolder('X').catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected' });
    expect(error.context).toMatchObject({ status: 401, vendorCode: 'OAUTH_025' });
  });

  it('updates a task, its description included (as markdown_content, which ClickUp declares)', async () => {
    const t = tool();
    const folder = await t.ensureFolder('Upd');
    const list = await t.ensureList(folder.id, 'L');
    const task = await t.createTask(list.id, { name: 'Call', description: 'x' });
    const updated = await t.updateTask(task.id, { status: 'closed', name: 'Call (cancelled)', description: '- Reason: **clash**' });
    expect(updated).toMatchObject({ id: task.id, name: 'Call (cancelled)', status: 'closed' });
    const [stored] = (await emu.get('tasks'))[0].lists[0].tasks;
    expect(stored).toMatchObject({ name: 'Call (cancelled)', description: '- Reason: **clash**' });
  });

  // developer.clickup.com, "Date formatting": a due date without due_date_time: true keeps only its day, at 4 am.
  it("keeps a due date's time of day (a booked call's start), when it is set and when it moves", async () => {
    const t = tool();
    const folder = await t.ensureFolder('Due');
    const list = await t.ensureList(folder.id, 'L');
    const task = await t.createTask(list.id, { name: 'Call', description: 'x', dueDate: Date.parse('2026-03-03T15:30:00Z') });
    const stored = async () => (await emu.get('tasks'))[0].lists[0].tasks[0].due_date;
    expect(await stored()).toBe(String(Date.parse('2026-03-03T15:30:00Z')));
    await t.updateTask(task.id, { dueDate: Date.parse('2026-03-05T09:45:00Z') });
    expect(await stored()).toBe(String(Date.parse('2026-03-05T09:45:00Z')));
    await t.updateTask(task.id, { dueDate: null });
    expect(await stored()).toBeNull();
  });

  it('is refused, in ClickUp\'s error shape, a body field the API does not declare', async () => {
    const res = await fetch(`${emu.env.CLICKUP_API_BASE}/list/1/task`, {
      method: 'POST',
      headers: { authorization: emu.env.CLICKUP_API_TOKEN!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', markdown_description: 'never read by ClickUp' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ err: 'Undeclared field markdown_description', ECODE: 'LOCAL_UNDECLARED' });
  });

  describe("archiving a client's folder, task by task", () => {
    type Recorded = { id: string; name: string; archived: boolean; lists: { name: string; tasks: { name: string; archived: boolean; status: { status: string } }[] }[] };
    const recorded = async (name: string) => (await emu.get<Recorded[]>('tasks')).find((f) => f.name === name)!;
    const flags = async (name: string) => (await recorded(name)).lists.flatMap((l) => l.tasks.map((t) => `${l.name}/${t.name}:${t.archived}`));
    const requests = async () => (await emu.get<{ method: string; path: string; status?: number; fault?: string }[]>('requests?vendor=clickup'));

    /** A folder of two lists, three tasks (one closed), and a folder beside it that must not change. */
    async function client(name: string) {
      const t = tool();
      const folder = await t.ensureFolder(name);
      const onboarding = await t.ensureList(folder.id, 'Onboarding');
      const calls = await t.ensureList(folder.id, 'Calls');
      await t.ensureTasks(onboarding.id, [{ name: 'Kick-off', description: 'x' }, { name: 'Assets', description: 'y' }]);
      const call = await t.createTask(calls.id, { name: 'Call', description: 'z' });
      await t.updateTask(call.id, { status: 'closed' });
      const other = await t.ensureFolder(`${name} (other client)`);
      await t.ensureTasks((await t.ensureList(other.id, 'Onboarding')).id, [{ name: 'Kick-off', description: 'x' }]);
      return folder.id;
    }

    it('archives every task of the folder, open and closed, once however often it is asked, and restores them', async () => {
      const folderId = await client('Initech');
      expect(await tool().setFolderArchived(folderId, true)).toEqual({ tasks: 3 });
      expect(await flags('Initech')).toEqual(['Onboarding/Kick-off:true', 'Onboarding/Assets:true', 'Calls/Call:true']);
      expect((await recorded('Initech')).lists[1]!.tasks[0]!.status.status).toBe('closed');
      expect(await flags('Initech (other client)')).toEqual(['Onboarding/Kick-off:false']);
      // Already archived: nothing to do, nothing sent but the listings.
      await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
      expect(await tool().setFolderArchived(folderId, true)).toEqual({ tasks: 0 });
      expect((await requests()).filter((r) => r.method !== 'GET')).toEqual([]);
      // An archived task is not among the open ones onboarding lists, and comes back when restored.
      expect(await tool().setFolderArchived(folderId, false)).toEqual({ tasks: 3 });
      expect(await tool().setFolderArchived(folderId, false)).toEqual({ tasks: 0 });
      expect(await flags('Initech')).toEqual(['Onboarding/Kick-off:false', 'Onboarding/Assets:false', 'Calls/Call:false']);
    });

    it('reads every page of a list before changing any (more than 100 tasks)', async () => {
      // 101 creates and as many updates: more than ClickUp's 100 a minute, which is not what this is about.
      const limit = (body: object) => fetch(`${emu.url}/_local/limits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor: 'clickup', ...body }) });
      await limit({ limit: null });
      try {
        const t = tool();
        const folder = await t.ensureFolder('Big');
        const list = await t.ensureList(folder.id, 'Work');
        for (let i = 0; i < 101; i++) await t.createTask(list.id, { name: `Task ${i}`, description: '' });
        expect(await t.setFolderArchived(folder.id, true)).toEqual({ tasks: 101 });
        expect((await flags('Big')).filter((f) => f.endsWith(':true'))).toHaveLength(101);
      } finally {
        await limit({ limit: 100, windowSeconds: 60 });
      }
    });

    it('finishes, when asked again, what a run that met a failure left', async () => {
      const folderId = await client('Hooli');
      // Every update of one task fails: the first run gives up on it (transient), the next finishes.
      const [assets] = (await recorded('Hooli')).lists[0]!.tasks.filter((t) => t.name === 'Assets') as unknown as { id: string }[];
      await emu.fault({ vendor: 'clickup', mode: 'fail', count: 3, match: `/task/${assets!.id} ` });
      const error = await tool().setFolderArchived(folderId, true).catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorUnavailable', vendor: 'clickup', context: { transient: true, status: 500, vendorCode: 'SHARD_001' } });
      expect(await flags('Hooli')).toEqual(['Onboarding/Kick-off:true', 'Onboarding/Assets:false', 'Calls/Call:false']);
      expect(await tool().setFolderArchived(folderId, true)).toEqual({ tasks: 2 });
      expect(await flags('Hooli')).toEqual(['Onboarding/Kick-off:true', 'Onboarding/Assets:true', 'Calls/Call:true']);
    });

    it('waits for X-RateLimit-Reset when an update is throttled, and retries it', async () => {
      const folderId = await client('Umbrella');
      await emu.fault({ vendor: 'clickup', mode: 'throttle', count: 1, retryAfterSeconds: 1, match: '"archived":true' });
      await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
      expect(await tool().setFolderArchived(folderId, true)).toEqual({ tasks: 3 });
      expect((await requests()).filter((r) => r.method === 'PUT').map((r) => r.status)).toEqual([429, 200, 200, 200]);
    });

    it('takes its pace for each request, and hands a throttle up to the step as MustWait', async () => {
      const folderId = await client('Soylent');
      await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
      const pace = countingPace('clickup');
      expect(await tool({ ...quickPolicy, pace }).setFolderArchived(folderId, true)).toEqual({ tasks: 3 });
      expect(pace.taken).toBe((await requests()).length);
      await emu.fault({ vendor: 'clickup', mode: 'throttle', count: 1, retryAfterSeconds: 2, match: '"archived":false' });
      const later = countingPace('clickup');
      const error = await tool({ ...quickPolicy, pace: later }).setFolderArchived(folderId, false).catch((e) => e);
      expect(error).toMatchObject({ name: 'MustWait', vendor: 'clickup' });
      expect(later.laters).toHaveLength(1);
      expect(later.laters[0]).toBeGreaterThan(0);
    });

    it('is refused for a folder that does not exist', async () => {
      const error = await tool().setFolderArchived('404404', true).catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorRejected', context: { status: 404, vendorCode: 'CAT_004' } });
    });
  });
});
