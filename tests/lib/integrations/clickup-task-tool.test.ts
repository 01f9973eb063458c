import { beforeEach, describe, expect, it } from 'vitest';
import { clickupTaskTool } from '../../../lib/integrations/clickup-task-tool.ts';
import { clickupVendor } from '../../../local/emulators/clickup.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(clickupVendor);
const tool = () =>
  clickupTaskTool({ token: emu.env.CLICKUP_API_TOKEN!, apiBase: emu.env.CLICKUP_API_BASE!, spaceId: emu.env.CLICKUP_SPACE_ID! }, quickPolicy);

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
});
