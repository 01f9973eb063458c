// A vendor that keeps failing while a client is offboarded: its integration
// is held for an operator's redrive, the others are taken back, the account
// stays offboarding (writes refused) until the redrive finishes the held one,
// once, and closes it.
import { afterEach, describe, expect, it } from 'vitest';
import { api, recorded } from '../support/http.ts';
import { clearFaults, executionStatus, followRun, onboard, redriveWhenHeld, SERVICE_KEY, setFault, uniqueToken, vendorRequests } from '../support/onboarding.ts';
import { row } from '../support/stack-db.ts';

const ADMIN_KEY = { 'x-admin-key': 'local-admin-api-key' };

afterEach(clearFaults);

/** A task update that archived, and met no fault. */
const archiving = (r: { method: string; text: string; fault?: string }) => r.method === 'PUT' && r.text.includes('"archived":true') && !r.fault;

describe('offboarding while ClickUp fails', () => {
  it('holds the task tool for a redrive while the other vendors are taken back; the redrive archives each task once and closes the account', async () => {
    const t = uniqueToken();
    const company = `Faulty leaver ${t}`;
    const onboarded = await onboard({ email: `leaver-${t}@example.com`, companyName: company });
    expect([onboarded.status, onboarded.body.success]).toEqual([200, true]);
    const { accountId, portalSlug: slug } = onboarded.body as { accountId: string; portalSlug: string };

    // Every task update fails: the archive cannot be done.
    await setFault({ vendor: 'clickup', mode: 'fail', count: 'always', match: '"archived":true' });
    const since = Date.now();
    const asked = await api(`/api/accounts/${accountId}/offboard`, { body: { reason: 'Fault drill' }, headers: ADMIN_KEY });
    expect(asked.status).toBe(202);
    const runId = asked.body.executionId as string;
    const answered = await followRun(asked);
    expect(answered.status).toBe(500);
    expect(answered.body.integrations).toEqual({ clickup: 'failed', dropbox: 'success', resend: 'success', slack: 'success', close: 'success' });
    expect(answered.body.errors).toEqual([expect.objectContaining({ integration: 'clickup' })]);
    expect(await row('follow_ups', { account_id: accountId, integration: 'clickup' })).toMatchObject({ state: 'open' });
    // Held: the account is still being closed, and refuses writes meanwhile.
    expect(await row('accounts', { id: accountId })).toMatchObject({ status: 'offboarding' });
    const write = await api('/api/onboarding-v2', { body: { accountId, email: `leaver-${t}@example.com`, companyName: company }, headers: SERVICE_KEY });
    expect([write.status, write.body.error.code]).toEqual([409, 'account_closed']);
    expect((await vendorRequests('clickup', since)).some((r) => r.fault === 'fail')).toBe(true);

    await clearFaults();
    const archivesBefore = (await vendorRequests('clickup', since)).filter(archiving).length;
    expect(await redriveWhenHeld(runId, 'offboarding')).toBe('SUCCEEDED');
    expect(await executionStatus(runId, 'offboarding')).toBe('SUCCEEDED');

    const finished = await api(`/api/onboarding/runs/${runId}`, { headers: SERVICE_KEY });
    expect([finished.status, finished.body.integrations.clickup]).toEqual([200, 'success']);
    expect(await row('accounts', { id: accountId })).toMatchObject({ status: 'closed' });
    expect(await row('follow_ups', { account_id: accountId, integration: 'clickup' })).toMatchObject({ state: 'resolved' });
    // Each of the folder's tasks archived by exactly one successful update; none made twice.
    const folder = (await recorded<any[]>('tasks')).find((f) => f.name.includes(`(${slug})`));
    const tasks = folder.lists.flatMap((l: any) => l.tasks);
    expect(tasks.length).toBe(11);
    expect(tasks.every((task: any) => task.archived)).toBe(true);
    const archives = (await vendorRequests('clickup', since)).filter(archiving);
    expect(archives.length - archivesBefore).toBe(tasks.length);
  });
});
