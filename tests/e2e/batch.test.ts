// Importing existing clients through POST /api/onboarding/batch: rows refused
// by line, the rest onboarded as ordinary runs, progress visible while they go.
import { describe, expect, it } from 'vitest';
import { api, errorCode, recorded } from '../support/http.ts';
import { SERVICE_KEY, uniqueToken } from '../support/onboarding.ts';
import { signedInUser } from '../support/users.ts';

const ADMIN_KEY = { 'x-admin-key': 'local-admin-api-key' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('POST /api/onboarding/batch', () => {
  it('onboards the 195 valid rows of a 200-row CSV, reports the 5 others by line, and shows progress while it runs', { timeout: 600_000 }, async () => {
    const t = uniqueToken();
    const lines = ['email,companyName,website,timezone'];
    const refusedAt = new Map<number, string>([
      [12, 'not-an-address,Bad Mail Co,,'],
      [57, `missing-${t}@example.com,,,`],
      [100, `zone-${t}@example.com,Zone Co,,Mars/Olympus`],
      [150, `site-${t}@example.com,Site Co,not a website at all,`],
      [201, `row-2-${t}@example.com,Twice ${t},,`],
    ]);
    for (let line = 2; line <= 201; line++) {
      lines.push(refusedAt.get(line) ?? `row-${line}-${t}@example.com,Import ${line} ${t},https://import-${line}.example,Europe/Berlin`);
    }
    const submitted = await api('/api/onboarding/batch', { raw: `${lines.join('\n')}\n`, headers: { ...SERVICE_KEY, 'content-type': 'text/csv' } });
    expect(submitted.status, submitted.text).toBe(202);
    expect(submitted.body).toMatchObject({ queued: 195, statusUrl: expect.stringContaining(`/api/onboarding/batches/${submitted.body.batchId}`) });
    expect(submitted.body.invalid.map((p: { line: number; errors: { path: string }[] }) => [p.line, p.errors[0]!.path])).toEqual([
      [12, '/email'],
      [57, '/companyName'],
      [100, '/timezone'],
      [150, '/companyUrl'],
      [201, '/email'],
    ]);

    // Followed as an operator would: counts move from queued through running (or waiting on a vendor) to done.
    const statusPath = new URL(submitted.body.statusUrl).pathname;
    const seen = new Set<string>();
    let view: any;
    for (const deadline = Date.now() + 540_000; ; ) {
      const reply = await api(statusPath, { headers: SERVICE_KEY });
      expect(reply.status).toBe(200);
      view = reply.body;
      for (const [state, n] of Object.entries<number>(view.counts)) if (n > 0 && state !== 'done') seen.add(state);
      if (view.counts.done === 195) break;
      expect(view.counts.held + view.counts.not_started, JSON.stringify(view.counts)).toBe(0);
      expect(view.estimatedCompletion).toEqual(expect.any(String));
      if (Date.now() > deadline) throw new Error(`still going: ${JSON.stringify(view.counts)}`);
      await sleep(1000);
    }
    expect([...seen].some((s) => s === 'running' || s === 'waiting' || s === 'queued'), [...seen].join()).toBe(true);
    expect(view).toMatchObject({ rows: 195, counts: { queued: 0, running: 0, waiting: 0, held: 0, not_started: 0 } });
    expect(view.estimatedCompletion).toBeUndefined();
    expect(view.items).toHaveLength(195);
    expect(view.items[0]).toMatchObject({ line: 2, email: `row-2-${t}@example.com`, state: 'done', runId: expect.any(String) });

    // Each an ordinary run: its answer, and its records at the vendors.
    const run = await api(`/api/onboarding/runs/${view.items[100].runId}`, { headers: SERVICE_KEY });
    expect(run.body).toMatchObject({ success: true, integrations: { clickup: 'success', dropbox: 'success', resend: 'success', slack: 'success', close: 'success' } });
    const leads = (await recorded('crm')).filter((l: { name: string }) => l.name.endsWith(` ${t}`));
    expect(leads).toHaveLength(195);
  });

  it('takes JSON from the admin key too, and refuses other media, other callers and a batch with no valid row', async () => {
    const t = uniqueToken();
    const json = (companies: unknown[]) => JSON.stringify({ companies });
    const ok = await api('/api/onboarding/batch', { raw: json([{ email: `j-${t}@example.com`, company_name: `Json ${t}` }]), headers: { ...ADMIN_KEY, 'content-type': 'application/json' } });
    expect(ok.status, ok.text).toBe(202);
    expect(ok.body).toMatchObject({ queued: 1, invalid: [] });
    expect((await api(`/api/onboarding/batches/${ok.body.batchId}`, { headers: ADMIN_KEY })).status).toBe(200);

    const none = await api('/api/onboarding/batch', { raw: json([{ email: `n-${t}@example.com` }]), headers: { ...SERVICE_KEY, 'content-type': 'application/json' } });
    expect([none.status, errorCode(none)]).toEqual([400, 'no_valid_rows']);
    const form = await api('/api/onboarding/batch', { raw: 'email=x', headers: { ...SERVICE_KEY, 'content-type': 'application/x-www-form-urlencoded' } });
    expect([form.status, errorCode(form)]).toEqual([415, 'unsupported_media_type']);
    const anonymous = await api('/api/onboarding/batch', { raw: json([{ email: `a-${t}@example.com`, companyName: 'A' }]), headers: { 'content-type': 'application/json' } });
    expect(anonymous.status).toBe(401);
    const user = await signedInUser();
    const member = await api('/api/onboarding/batch', { raw: json([{ email: user.email, companyName: 'Mine' }]), headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' } });
    expect(member.status).toBe(403);
    expect((await api('/api/onboarding/batches/00000000-0000-4000-8000-000000000000', { headers: SERVICE_KEY })).status).toBe(404);
  });
});
