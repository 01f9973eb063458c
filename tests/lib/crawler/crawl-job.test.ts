// Crawl jobs from request to summary: the use cases with the DynamoDB records
// on dynalite, and in-memory stand-ins for the analyzer, the scraper and the
// refresh workflow. Assertions are on what the records hold afterwards.
import { beforeEach, describe, expect, it } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { analyseSite, finishCrawlJob, openCrawlJob, scrapeSite } from '../../../lib/crawler/crawl-job.ts';
import { dynamodbCrawlRecords } from '../../../lib/crawler/dynamodb-records.ts';
import type { CrawlRecords, GeoContext } from '../../../lib/crawler/records.ts';
import { requestRefresh, siteAddress } from '../../../lib/crawler/request-refresh.ts';
import { SiteError } from '../../../lib/crawler/site-errors.ts';
import type { ScrapedPage, SiteAnalysis, SiteAnalyzer } from '../../../lib/crawler/site.ts';
import { crawlerSummary } from '../../../lib/crawler/summary.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { fakeAccounts, fakeScraper, fakeWorkflow } from '../../support/fakes.ts';

const dynamo = useDynamo();
let records: CrawlRecords;
let accounts: ReturnType<typeof fakeAccounts>;
let clock: number;
const now = () => new Date(clock);
const tick = (ms = 1000) => (clock += ms);

const page = (path: string, text: string): ScrapedPage => ({
  url: `https://bakery.example${path}`,
  title: path,
  description: '',
  headings: [],
  wordCount: text.split(/\s+/).filter(Boolean).length,
  text,
});
const PAGES = [page('/', 'Fresh bread in Springfield every day'), page('/about', 'A family bakery since 1901'), page('/oregon', 'We deliver across Oregon and Springfield')];

function fakeAnalyzer(fail?: Error): SiteAnalyzer & { calls: number } {
  const analyzer = {
    calls: 0,
    async analyse(url: string): Promise<SiteAnalysis> {
      analyzer.calls++;
      if (fail) throw fail;
      return {
        source: 'measurement', url, finalUrl: url, analysedAt: now().toISOString(), https: true, status: 200, ttfbMs: 120, totalMs: 340, bytes: 20480,
        scripts: 3, stylesheets: 2, images: 5, title: 'Bakery', description: 'Fresh', mobile: null, desktop: null,
      };
    },
  };
  return analyzer;
}
beforeEach(async () => {
  clock = Date.parse('2026-03-01T10:00:00Z');
  records = dynamodbCrawlRecords({ db: dynamo.db, tables: dynamo.tables, now });
  accounts = fakeAccounts();
});

async function account(url = 'https://bakery.example/') {
  const id = crypto.randomUUID();
  await accounts.store.saveAccountDetails(id, { company_name: 'Bakery', company_url: url });
  return id;
}

describe('requesting a refresh', () => {
  it('queues a job with its geo context, notes the geo target, and starts the workflow named after the job', async () => {
    const id = await account();
    const workflow = fakeWorkflow();
    const answer = await requestRefresh({ ...records, accounts: accounts.store, workflow, now }, id, { industry: ' Bakery ', city: 'Springfield', region: 'Oregon' });
    expect(answer).toMatchObject({ status: 'queued', url: 'https://bakery.example/', context: { industry: 'Bakery', city: 'Springfield', region: 'Oregon' } });
    expect(answer.jobId).toMatch(/^20260301T100000000Z-[0-9a-f]{8}$/);
    expect(workflow.calls).toEqual([{ runId: answer.jobId, input: { accountId: id, jobId: answer.jobId } }]);
    expect(await records.jobs.get(answer.jobId)).toMatchObject({ account_id: id, kind: 'refresh', status: 'queued', requested_at: '2026-03-01T10:00:00.000Z' });
    const { geoTargets } = await records.stats.forAccount(id);
    expect(geoTargets).toEqual([
      { industry: 'Bakery', city: 'Springfield', region: 'Oregon', site: 'https://bakery.example', firstRequestedAt: '2026-03-01T10:00:00.000Z', lastRequestedAt: '2026-03-01T10:00:00.000Z', refreshes: 1, lastJobId: answer.jobId },
    ]);
    expect((await records.events.recent(id, 5)).map((e) => e.type)).toEqual(['job.queued']);
  });

  it('crawls the address given, else the account website; refuses other schemes and unknown accounts', async () => {
    const id = await account();
    const deps = { ...records, accounts: accounts.store, workflow: fakeWorkflow(), now };
    expect((await requestRefresh(deps, id, { url: 'www.bakery.example/shop' })).url).toBe('https://www.bakery.example/shop');
    await expect(requestRefresh(deps, id, { url: 'javascript:alert(1)' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(requestRefresh(deps, id, { url: 'https://user:pw@bakery.example/' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(requestRefresh(deps, crypto.randomUUID(), {})).rejects.toMatchObject({ code: 'not_found' });
    const bare = crypto.randomUUID();
    await accounts.store.saveAccountDetails(bare, { company_name: 'No site' });
    await expect(requestRefresh(deps, bare, {})).rejects.toMatchObject({ code: 'invalid_request', details: [{ path: '/body/url' }] });
    expect(siteAddress('https://bakery.example:8443/x#frag')).toBe('https://bakery.example:8443/x');
    // The websites onboarding takes (lib/website.ts): a public-looking host name, not an address or a single label.
    for (const raw of ['http://10.0.0.1:8080/x', 'http://intranet/', `https://${'a'.repeat(64)}.example/`]) expect(() => siteAddress(raw), raw).toThrow();
  });

  it('marks the job failed when its workflow cannot be started', async () => {
    const id = await account();
    const workflow = fakeWorkflow();
    workflow.failNext();
    await expect(requestRefresh({ ...records, accounts: accounts.store, workflow, now }, id, {})).rejects.toThrow('throttled');
    const [job] = await records.jobs.recent(id, 5);
    expect(job).toMatchObject({ status: 'failed' });
  });
});

describe('a crawl job at work', () => {
  async function queued(context: GeoContext = { city: 'Springfield', region: 'Oregon', industry: 'Bakery' }) {
    const id = await account();
    const jobId = `job-${crypto.randomUUID()}`;
    await openCrawlJob(records, { job_id: jobId, account_id: id, kind: 'refresh', url: 'https://bakery.example/', context, requested_at: now().toISOString() });
    return { accountId: id, jobId };
  }

  it('analyses and scrapes once, however often a step runs, then completes the job and updates the stats', async () => {
    const input = await queued();
    const analyzer = fakeAnalyzer();
    const scraper = fakeScraper(PAGES);
    tick();
    const analysis = await analyseSite({ ...records, analyzer, now }, input);
    tick();
    const scrape = await scrapeSite({ ...records, scraper, maxPages: 20, now }, input);
    await analyseSite({ ...records, analyzer, now }, input);
    await scrapeSite({ ...records, scraper, maxPages: 20, now }, input);
    expect([analyzer.calls, scraper.calls]).toEqual([1, 1]);
    expect(analysis).toEqual({
      outcome: 'success',
      details: { source: 'measurement', status: 200, ttfbMs: 120, totalMs: 340, bytes: 20480, https: true, title: 'Bakery', analysedAt: '2026-03-01T10:00:01.000Z' },
    });
    expect(scrape).toEqual({ outcome: 'success', details: { source: 'crawler', pages: 3, words: 17, skipped: { robots: 1 } } });
    expect(await records.results.pages(input.jobId)).toEqual(PAGES);

    tick(2500);
    expect(await finishCrawlJob({ ...records, now }, input)).toEqual({ status: 'completed' });
    expect(await finishCrawlJob({ ...records, now }, input)).toEqual({ status: 'completed' });
    const job = (await records.jobs.get(input.jobId))!;
    expect(job).toMatchObject({ status: 'completed', started_at: '2026-03-01T10:00:01.000Z', finished_at: '2026-03-01T10:00:04.500Z', duration_ms: 3500, pages_crawled: 3, errors: [] });

    const { sites, geoTargets } = await records.stats.forAccount(input.accountId);
    expect(sites).toEqual([
      {
        site: 'https://bakery.example',
        pagesCrawled: 3,
        words: 17,
        crawls: 1,
        lastCrawledAt: '2026-03-01T10:00:04.500Z',
        lastJobId: input.jobId,
        analysis: { source: 'measurement', status: 200, ttfbMs: 120, totalMs: 340, bytes: 20480, https: true, title: 'Bakery', analysedAt: '2026-03-01T10:00:01.000Z' },
      },
    ]);
    // Springfield is on two pages, Oregon on one, "Bakery" (whole word, any case) on one: "bakery since".
    expect(geoTargets[0]!.coverage).toEqual({ jobId: input.jobId, pagesChecked: 3, mentions: { industry: 1, city: 2, region: 1 } });

    const events = await records.events.recent(input.accountId, 20);
    expect(events.map((e) => e.type).reverse()).toEqual(['job.queued', 'job.started', 'analysis.completed', 'scrape.completed', 'job.completed']);
    expect(events[0]).toMatchObject({ jobId: input.jobId, message: 'Crawl of https://bakery.example/ completed in 3.5 s', data: { durationMs: 3500, pages: 3 } });
  });

  it('records a failed part with its reason, fails the job, and completes it once a redriven part succeeds', async () => {
    const input = await queued({ city: 'Springfield', region: '', industry: '' });
    await analyseSite({ ...records, analyzer: fakeAnalyzer(), now }, input);
    const down = new SiteError('timed_out', 'bakery.example did not answer in time', true);
    await expect(scrapeSite({ ...records, scraper: fakeScraper(PAGES, down), maxPages: 20, now }, input)).rejects.toBe(down);
    expect(await finishCrawlJob({ ...records, now }, input)).toEqual({ status: 'failed' });
    expect(await records.jobs.get(input.jobId)).toMatchObject({ status: 'failed', errors: [{ part: 'scrape', message: 'bakery.example did not answer in time' }] });
    expect((await records.stats.forAccount(input.accountId)).sites[0]).toMatchObject({ crawls: 0, analysis: { status: 200 } });

    tick();
    await scrapeSite({ ...records, scraper: fakeScraper(PAGES), maxPages: 20, now }, input);
    expect(await finishCrawlJob({ ...records, now }, input)).toEqual({ status: 'completed' });
    expect((await records.stats.forAccount(input.accountId)).sites[0]).toMatchObject({ crawls: 1, pagesCrawled: 3 });
    const types = (await records.events.recent(input.accountId, 20)).map((e) => e.type).reverse();
    expect(types).toEqual(['job.queued', 'job.started', 'analysis.completed', 'scrape.failed', 'job.failed', 'scrape.completed', 'job.completed']);
  });

  it("takes a branch's caught error as the reason when a step could not record one", async () => {
    const input = await queued({});
    await analyseSite({ ...records, analyzer: fakeAnalyzer(), now }, input);
    await finishCrawlJob({ ...records, now }, { ...input, branches: [[{ integration: 'scrape', outcome: 'failed', error: { Error: 'States.Timeout' } }]] });
    expect((await records.jobs.get(input.jobId))!.errors).toEqual([{ part: 'scrape', message: 'The scrape step failed (States.Timeout)' }]);
  });

  it('skips when there is no job (an onboarding without a website), and never touches another account’s job', async () => {
    const input = await queued();
    const none = { accountId: input.accountId, jobId: 'no-such-job' };
    expect(await analyseSite({ ...records, analyzer: fakeAnalyzer(), now }, none)).toMatchObject({ outcome: 'skipped' });
    expect(await scrapeSite({ ...records, scraper: fakeScraper(PAGES), maxPages: 5, now }, none)).toMatchObject({ outcome: 'skipped' });
    expect(await finishCrawlJob({ ...records, now }, none)).toEqual({ status: 'none' });
    await expect(analyseSite({ ...records, analyzer: fakeAnalyzer(), now }, { ...input, accountId: 'someone-else' })).rejects.toThrow(/does not belong/);
  });
});

describe('the summary', () => {
  it('shows the stats, recent jobs newest first with status and timing, their events, and the geo targets', async () => {
    const id = await account();
    const workflow = fakeWorkflow();
    const deps = { ...records, accounts: accounts.store, workflow, now };
    const first = await requestRefresh(deps, id, { city: 'Springfield' });
    await analyseSite({ ...records, analyzer: fakeAnalyzer(), now }, { accountId: id, jobId: first.jobId });
    await scrapeSite({ ...records, scraper: fakeScraper(PAGES), maxPages: 20, now }, { accountId: id, jobId: first.jobId });
    tick(1200);
    await finishCrawlJob({ ...records, now }, { accountId: id, jobId: first.jobId });
    tick();
    const second = await requestRefresh(deps, id, { city: 'springfield ', region: 'Oregon' });

    const summary = await crawlerSummary({ ...records, accounts: accounts.store }, id);
    expect(summary.recentJobs).toEqual([
      { jobId: second.jobId, kind: 'refresh', url: 'https://bakery.example/', status: 'queued', context: { city: 'springfield', region: 'Oregon' }, requestedAt: '2026-03-01T10:00:02.200Z' },
      {
        jobId: first.jobId,
        kind: 'refresh',
        url: 'https://bakery.example/',
        status: 'completed',
        context: { city: 'Springfield' },
        requestedAt: '2026-03-01T10:00:00.000Z',
        startedAt: '2026-03-01T10:00:00.000Z',
        finishedAt: '2026-03-01T10:00:01.200Z',
        durationMs: 1200,
        pagesCrawled: 3,
        analysis: expect.objectContaining({ source: 'measurement', ttfbMs: 120 }),
      },
    ]);
    expect(summary.recentEvents[0]).toMatchObject({ jobId: second.jobId, type: 'job.queued' });
    expect(summary.recentEvents.filter((e) => e.jobId === first.jobId).map((e) => e.type)).toContain('job.completed');
    expect(summary.stats).toEqual([expect.objectContaining({ site: 'https://bakery.example', pagesCrawled: 3, crawls: 1 })]);
    // "Springfield" alone and "springfield + Oregon" are two targets; the first has coverage from its completed crawl.
    expect(summary.geoTargets).toEqual([
      expect.objectContaining({ city: 'springfield', region: 'Oregon', refreshes: 1, lastJobId: second.jobId }),
      expect.objectContaining({ city: 'Springfield', refreshes: 1, coverage: { jobId: first.jobId, pagesChecked: 3, mentions: { city: 2 } } }),
    ]);
    expect(summary.geoTargets[0]).not.toHaveProperty('coverage');
  });

  it('answers not found for an unknown account, and for anything that cannot be an account id', async () => {
    // The DynamoDB accounts: a key over 2 KB would be a DynamoDB error (a 500), not an unknown account.
    const deps = { ...records, accounts: dynamodbAccounts({ db: dynamo.db, tables: dynamo.tables }) };
    for (const id of [crypto.randomUUID(), 'x'.repeat(3000), '../etc', '']) await expect(crawlerSummary(deps, id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(requestRefresh({ ...deps, workflow: fakeWorkflow(), now }, 'x'.repeat(3000), {})).rejects.toMatchObject({ code: 'not_found' });
  });
});
