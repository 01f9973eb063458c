// Enhanced onboarding and crawler intelligence over HTTP on the local stack.
// The client website is a fixture site this file serves on loopback; the
// stack reaches it as http://bakery-<t>.localhost:<port> (every *.localhost
// name is loopback), which the local stage may crawl and a deployed one may not.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { bakeryRoutes, bakeryRows } from '../fixtures/bakery-site.ts';
import { api, errorCode, recorded, stack, type Reply } from '../support/http.ts';
import { followRun } from '../support/onboarding.ts';
import { useSite } from '../support/site.ts';
import { memberRecord } from '../support/stack-db.ts';
import { bearer, signedInUser } from '../support/users.ts';

const KEY = { 'x-api-key': 'local-internal-api-key' };
const ADMIN = { 'x-admin-key': 'local-admin-api-key' };
const token = () => Math.random().toString(36).slice(2, 8);
const site = useSite(bakeryRoutes);
const siteUrl = (t: string) => `http://bakery-${t}.localhost:${site.port}`;

const finalAnswer = (reply: Reply) => followRun(reply, 120);

const summaryOf = (accountId: string, headers: Record<string, string> = ADMIN) => api(`/api/crawler/accounts/${accountId}/summary`, { headers });

/** The summary once the job has finished (the refresh runs outside the request). */
async function summaryAfter(accountId: string, jobId: string) {
  for (let i = 0; i < 120; i++) {
    const reply = await summaryOf(accountId);
    const job = reply.body.summary.recentJobs.find((j: { jobId: string }) => j.jobId === jobId);
    if (job && (job.status === 'completed' || job.status === 'failed')) return reply.body.summary;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`job ${jobId} did not finish`);
}

async function onboardedAccount(t: string, website?: string) {
  const reply = await finalAnswer(await api('/api/onboarding-v2', { body: { email: `geo-${t}@example.com`, companyName: `Geo ${t}`, ...(website ? { website } : {}) }, headers: KEY }));
  expect(reply.status).toBe(200);
  return reply.body.accountId as string;
}

describe('enhanced onboarding', () => {
  it('onboards a company, analyses and scrapes its website, files the content as CSV in its storage folder, and notifies CRM and chat', async () => {
    const t = token();
    const email = `owner-${t}@example.com`;
    const website = `${siteUrl(t)}/`;
    const first = await api('/api/onboarding/enhanced', { body: { email, company_name: `Bakery ${t}`, website, phone_number: '+1 555 0100' }, headers: KEY });
    const reply = await finalAnswer(first);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      success: true,
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      portalSlug: `bakery-${t}`,
      integrations: { dropbox: 'success', analysis: 'success', scrape: 'success', upload: 'success', close: 'success', slack: 'success' },
      executionId: expect.any(String),
    });
    expect(Object.keys(reply.body.integrations).sort()).toEqual(['analysis', 'close', 'dropbox', 'scrape', 'slack', 'upload']);
    const csvPath = `/Clients/bakery-${t}/04 Website/website-content.csv`;
    expect(reply.body.details).toMatchObject({
      analysis: { source: 'measurement', status: 200, ttfbMs: expect.any(Number), totalMs: expect.any(Number), bytes: expect.any(Number), https: false, title: 'Springfield Bakery — Fresh bread daily' },
      scrape: { source: 'crawler', pages: 4, words: 35, skipped: { robots: 1, 'not-html': 1, 'other-origin': 1 } },
      upload: { path: csvPath, rows: 4 },
    });

    // Storage: the folder tree, and the CSV with one correct row per page, quoting intact.
    const storage = await recorded('storage');
    expect(storage.filter((e: { path: string; type: string }) => e.path.startsWith(`/Clients/bakery-${t}/`) && e.type === 'folder')).toHaveLength(10);
    const file = storage.find((e: { path: string }) => e.path === csvPath);
    expect(file).toMatchObject({ type: 'file' });
    expect(parse(file.content, { bom: true, columns: true })).toEqual(bakeryRows(siteUrl(t)));
    const member = (await memberRecord(reply.body.accountId, email))!;
    expect(member.storage_link).toBe(storage.find((e: { path: string }) => e.path === `/Clients/bakery-${t}`).sharedLink);

    // The CRM lead and the team's chat notice.
    const leads = (await recorded('crm')).filter((l: { name: string }) => l.name === `Bakery ${t}`);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({ url: website, contacts: [expect.objectContaining({ emails: [expect.objectContaining({ email })] })] });
    const notices = (await recorded('chat')).filter((m: { text: string }) => m.text.includes(`New client onboarded: Bakery ${t}`));
    expect(notices).toHaveLength(1);
    expect(notices[0].text).toContain('Website content: 4 pages, 35 words');
    expect(reply.body.details.slack).toEqual({ posted: ['enhanced-onboarding'] });

    // The run's status URL answers the same body; the crawl shows in the account's summary as a job.
    const status = await api(`/api/onboarding/runs/${reply.body.executionId}`, { headers: KEY });
    expect(status.status).toBe(200);
    expect(status.body.integrations).toEqual(reply.body.integrations);
    const summary = (await summaryOf(reply.body.accountId)).body.summary;
    expect(summary.recentJobs).toEqual([expect.objectContaining({ jobId: reply.body.executionId, kind: 'onboarding', status: 'completed', pagesCrawled: 4 })]);
    expect(summary.stats).toEqual([expect.objectContaining({ site: siteUrl(t), pagesCrawled: 4, words: 35, crawls: 1 })]);

    // The same submission again joins the same run: nothing is crawled, uploaded or posted twice.
    const hits = site.hits.length;
    const again = await finalAnswer(await api('/api/onboarding/enhanced', { body: { email, company_name: `Bakery ${t}`, website, phone_number: '+1 555 0100' }, headers: KEY }));
    expect(again.body).toMatchObject({ accountId: reply.body.accountId, executionId: reply.body.executionId });
    expect(site.hits.length).toBe(hits);
    expect((await recorded('chat')).filter((m: { text: string }) => m.text.includes(`Bakery ${t}`))).toHaveLength(1);
  });

  it('posts its own chat notice for an account onboarding-v2 has already announced', async () => {
    const t = token();
    const body = { email: `again-${t}@example.com`, companyName: `Again ${t}` };
    const v2 = await finalAnswer(await api('/api/onboarding-v2', { body, headers: KEY }));
    expect(v2.body.details.slack).toEqual({ posted: ['new-client'] });
    const reply = await finalAnswer(await api('/api/onboarding/enhanced', { body, headers: KEY }));
    expect(reply.status).toBe(200);
    expect(reply.body.accountId).toBe(v2.body.accountId);
    expect(reply.body.details.slack).toEqual({ posted: ['enhanced-onboarding'] });
    expect((await recorded('chat')).filter((m: { text: string }) => m.text.includes(`New client onboarded: Again ${t}`))).toHaveLength(2);
  });

  it('skips the site work for a company without a website', async () => {
    const t = token();
    const reply = await finalAnswer(await api('/api/onboarding/enhanced', { body: { email: `nosite-${t}@example.com`, companyName: `Nosite ${t}` }, headers: KEY }));
    expect(reply.status).toBe(200);
    expect(reply.body.integrations).toEqual({ dropbox: 'success', analysis: 'skipped', scrape: 'skipped', upload: 'skipped', close: 'success', slack: 'success' });
    expect(reply.body.details.scrape.reason).toContain('No website');
  });

  it('keeps the access rule and validation of onboarding-v2', async () => {
    expect((await api('/api/onboarding/enhanced', { body: { email: 'x@example.com', companyName: 'X' } })).status).toBe(401);
    const missing = await api('/api/onboarding/enhanced', { body: { email: 'x@example.com' }, headers: KEY });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].path).toBe('/body/companyName');
  });
});

describe('crawler intelligence', () => {
  it('refreshes with geo context outside the request; the summary then shows the completed job, its events and the geo target', async () => {
    const t = token();
    const accountId = await onboardedAccount(t, `${siteUrl(t)}/`);
    const refresh = await api(`/api/crawler/accounts/${accountId}/refresh`, {
      body: { url: `${siteUrl(t)}/`, industry: 'Bakery', city: 'Springfield', region: 'Oregon' },
      headers: ADMIN,
    });
    expect(refresh.status).toBe(202);
    expect(refresh.body).toMatchObject({
      success: true,
      accountId,
      jobId: expect.any(String),
      status: 'queued',
      context: { industry: 'Bakery', city: 'Springfield', region: 'Oregon' },
      summaryUrl: `${stack().urls.api}/api/crawler/accounts/${accountId}/summary`,
    });

    const summary = await summaryAfter(accountId, refresh.body.jobId);
    const job = summary.recentJobs.find((j: { jobId: string }) => j.jobId === refresh.body.jobId);
    expect(job).toMatchObject({
      kind: 'refresh',
      status: 'completed',
      url: `${siteUrl(t)}/`,
      context: { industry: 'Bakery', city: 'Springfield', region: 'Oregon' },
      pagesCrawled: 4,
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      durationMs: expect.any(Number),
      analysis: expect.objectContaining({ source: 'measurement', status: 200 }),
    });
    expect(Date.parse(job.finishedAt)).toBeGreaterThanOrEqual(Date.parse(job.startedAt));
    const events = summary.recentEvents.filter((e: { jobId: string }) => e.jobId === refresh.body.jobId).map((e: { type: string }) => e.type);
    expect(events.sort()).toEqual(['analysis.completed', 'job.completed', 'job.queued', 'job.started', 'scrape.completed']);
    expect(summary.geoTargets).toEqual([
      expect.objectContaining({
        industry: 'Bakery',
        city: 'Springfield',
        region: 'Oregon',
        site: siteUrl(t),
        refreshes: 1,
        lastJobId: refresh.body.jobId,
        // Of the four pages: "Springfield" on two, "Oregon" and "bakery" on the home page.
        coverage: { jobId: refresh.body.jobId, pagesChecked: 4, mentions: { industry: 1, city: 2, region: 1 } },
      }),
    ]);
    expect(summary.stats).toEqual([expect.objectContaining({ site: siteUrl(t), pagesCrawled: 4, crawls: 1, analysis: expect.objectContaining({ status: 200 }) })]);
  });

  it('fails the job, with the reason for each part, for a website that does not exist, rather than completing a crawl of nothing', async () => {
    const accountId = await onboardedAccount(token());
    const refresh = await api(`/api/crawler/accounts/${accountId}/refresh`, { body: { url: 'http://no-such-host.invalid/' }, headers: ADMIN });
    expect(refresh.status).toBe(202);
    const summary = await summaryAfter(accountId, refresh.body.jobId);
    const job = summary.recentJobs.find((j: { jobId: string }) => j.jobId === refresh.body.jobId);
    expect(job).toMatchObject({ status: 'failed' });
    expect(job.errors).toEqual(
      expect.arrayContaining([
        { part: 'analysis', message: expect.stringContaining('could not be resolved') },
        { part: 'scrape', message: expect.stringContaining('could not be resolved') },
      ]),
    );
    const events = summary.recentEvents.filter((e: { jobId: string }) => e.jobId === refresh.body.jobId).map((e: { type: string }) => e.type);
    expect(events).toContain('scrape.failed');
    expect(events).not.toContain('scrape.completed');
  });

  it('admits admins only: 401 without valid credentials, 403 for a signed-in user who is not an admin', async () => {
    const t = token();
    const accountId = await onboardedAccount(t);
    const user = await signedInUser();
    const refresh = (headers: Record<string, string>) => api(`/api/crawler/accounts/${accountId}/refresh`, { body: { city: 'Springfield' }, headers });

    const refused: Record<string, string>[] = [{}, { 'x-admin-key': 'wrong' }, bearer('not-a-token'), KEY];
    for (const headers of refused) {
      const reply = await summaryOf(accountId, headers);
      expect(reply.status, JSON.stringify(headers)).toBe(401);
      expect(errorCode(reply)).toBe('unauthenticated');
      expect((await refresh(headers)).status).toBe(401);
    }
    const notAdmin = await summaryOf(accountId, bearer(user.accessToken));
    expect(notAdmin.status).toBe(403);
    expect(errorCode(notAdmin)).toBe('forbidden');
    expect((await refresh(bearer(user.accessToken))).status).toBe(403);

    // Made an admin through the identity provider's admin API (app_metadata), the same token gets in.
    const promoted = await fetch(`${stack().env.SUPABASE_URL}/auth/v1/admin/users/${user.user.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stack().env.SUPABASE_SERVICE_ROLE_KEY}`, apikey: stack().env.SUPABASE_SERVICE_ROLE_KEY!, 'content-type': 'application/json' },
      body: JSON.stringify({ app_metadata: { role: 'admin' } }),
    });
    expect(promoted.status).toBe(200);
    const asAdmin = await summaryOf(accountId, bearer(user.accessToken));
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).toEqual({ success: true, summary: { stats: [], recentJobs: [], recentEvents: [], geoTargets: [] } });
  });

  it('answers 404 for an unknown account, and 400 for an address that is not a website', async () => {
    expect((await summaryOf(crypto.randomUUID())).status).toBe(404);
    expect((await api(`/api/crawler/accounts/${crypto.randomUUID()}/refresh`, { body: {}, headers: ADMIN })).status).toBe(404);
    const accountId = await onboardedAccount(token());
    const bad = await api(`/api/crawler/accounts/${accountId}/refresh`, { body: { url: 'file:///etc/passwd' }, headers: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ path: '/body/url', message: expect.any(String) }]);
    const noSite = await api(`/api/crawler/accounts/${accountId}/refresh`, { body: { city: 'Springfield' }, headers: ADMIN });
    expect(noSite.status).toBe(400);
    // What the stats' keys could not hold: a host name past DNS's limits (a label of 1,100 characters: the job was
    // queued, then failed writing "site#<origin>", over DynamoDB's 1,024-byte sort key, and stayed "running"), and
    // geo terms of 100 emoji each (the "geo#industry|city|region" key of 1,206 bytes). Refused the way onboarding
    // refuses a website, with nothing written.
    for (const body of [{ url: `http://${'a'.repeat(1100)}.example/` }, { url: `https://${Array(60).fill('abcd').join('.')}.example/` }]) {
      const res = await api(`/api/crawler/accounts/${accountId}/refresh`, { body, headers: ADMIN });
      expect([res.status, res.body.error.details]).toEqual([400, [{ path: '/body/url', message: expect.any(String) }]]);
    }
    const emoji = '\u{1F950}'.repeat(100);
    const geo = await api(`/api/crawler/accounts/${accountId}/refresh`, { body: { url: 'https://bakery.example/', industry: emoji, city: emoji, region: emoji }, headers: ADMIN });
    expect(geo.status).toBe(400);
    expect(geo.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/body/industry', '/body/city', '/body/region']);
    expect((await summaryOf(accountId)).body.summary.recentJobs).toEqual([]);
  });
});
