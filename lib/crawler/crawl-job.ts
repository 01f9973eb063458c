// A crawl job: the analysis and the scrape of one site for one account, run
// as two parallel steps (of the refresh machine, or of the enhanced
// onboarding machine) and closed by finishCrawlJob, which sets the job's
// final status and brings the account's stats up to date.
//
// Each step is idempotent: a result already stored for the job is used as
// it is, so a retried or redriven step never crawls twice; status changes and
// the events that announce them happen once (conditional writes).
import { randomBytes } from 'node:crypto';
import { DomainError } from '../errors.ts';
import { skipped, type StepResult } from '../provisioning/outcomes.ts';
import { geoCoverage } from './geo.ts';
import { CRAWL_PARTS, hasGeo, siteOf, type CrawlJob, type CrawlPart, type CrawlRecords, type NewJob } from './records.ts';
import { keyFigures, type SiteAnalyzer, type SiteScraper } from './site.ts';

export interface CrawlStepInput {
  accountId: string;
  jobId: string;
}

type Clock = { now?: () => Date };
type RecordsDeps = Pick<CrawlRecords, 'jobs' | 'events'> & Clock;

/** A job id that sorts by time and is a valid execution name: 20260315T101500123Z-9f2c4e1a. */
export const newJobId = (at: Date) => `${at.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;

/** Opens a job (queued) and announces it, once; notes its geo target, if it has one. */
export async function openCrawlJob(deps: Pick<CrawlRecords, 'jobs' | 'events' | 'stats'>, job: NewJob): Promise<boolean> {
  const created = await deps.jobs.open(job);
  if (!created) return false;
  if (hasGeo(job.context)) await deps.stats.noteGeoTarget(job.account_id, job.context, { jobId: job.job_id, site: siteOf(job.url), at: job.requested_at });
  await deps.events.record(job.account_id, {
    jobId: job.job_id,
    type: 'job.queued',
    message: `${job.kind === 'refresh' ? 'Refresh' : 'Onboarding crawl'} of ${job.url} queued`,
    data: { url: job.url, kind: job.kind, ...(hasGeo(job.context) ? { context: job.context } : {}) },
  });
  return true;
}

export async function analyseSite(deps: RecordsDeps & Pick<CrawlRecords, 'results'> & { analyzer: SiteAnalyzer }, input: CrawlStepInput): Promise<StepResult> {
  const job = await jobFor(deps, input);
  if (!job) return skipped('No website was given, so there is no site to analyse');
  return part(deps, job, 'analysis', async () => {
    let analysis = await deps.results.analysis(job.job_id);
    if (!analysis) {
      const made = await deps.analyzer.analyse(job.url);
      if (await deps.results.saveAnalysis(job.job_id, made)) {
        analysis = made;
        const figures = keyFigures(made);
        await deps.events.record(job.account_id, {
          jobId: job.job_id,
          type: 'analysis.completed',
          message:
            made.source === 'pagespeed'
              ? `PageSpeed analysed ${job.url}: performance ${figures.performanceScore ?? 'n/a'} (mobile), ${figures.desktopPerformanceScore ?? 'n/a'} (desktop)`
              : `Measured ${job.url}: status ${made.status}, first byte after ${made.ttfbMs} ms, ${made.bytes} bytes`,
          data: figures,
        });
      } else {
        analysis = (await deps.results.analysis(job.job_id))!;
      }
    }
    return { ...keyFigures(analysis), analysedAt: analysis.analysedAt };
  });
}

export async function scrapeSite(
  deps: RecordsDeps & Pick<CrawlRecords, 'results'> & { scraper: SiteScraper; maxPages: number },
  input: CrawlStepInput,
): Promise<StepResult> {
  const job = await jobFor(deps, input);
  if (!job) return skipped('No website was given, so there is no site to scrape');
  return part(deps, job, 'scrape', async () => {
    let summary = await deps.results.scrape(job.job_id);
    if (!summary) {
      const result = await deps.scraper.scrape(job.url, { maxPages: deps.maxPages });
      const made = {
        source: result.source,
        startUrl: result.startUrl,
        pages: result.pages.length,
        words: result.pages.reduce((n, p) => n + p.wordCount, 0),
        skipped: result.skipped,
        finishedAt: now(deps).toISOString(),
      };
      if (await deps.results.saveScrape(job.job_id, made, result.pages)) {
        await deps.events.record(job.account_id, {
          jobId: job.job_id,
          type: 'scrape.completed',
          message: `Scraped ${made.pages} page${made.pages === 1 ? '' : 's'} of ${job.url} (${made.words} words)`,
          data: { source: made.source, pages: made.pages, words: made.words, skipped: made.skipped },
        });
      }
      summary = (await deps.results.scrape(job.job_id))!;
    }
    return { source: summary.source, pages: summary.pages, words: summary.words, skipped: summary.skipped };
  });
}

/** What a branch of the state machine ended with (a Catch leaves the error there). */
export interface BranchOutput {
  integration?: string;
  outcome?: string;
  error?: { Error?: string; Cause?: string };
}

/**
 * Closes the job: completed when both parts completed, else failed with each
 * missing part's reason. The stats (site figures, a completed crawl, geo
 * coverage) are written before the status, so a retry after a crash between
 * the two writes them again rather than never.
 */
export async function finishCrawlJob(
  deps: CrawlRecords & Clock,
  input: CrawlStepInput & { branches?: (BranchOutput | BranchOutput[])[] },
): Promise<{ status: CrawlJob['status'] | 'none' }> {
  const job = await jobFor(deps, input);
  if (!job) return { status: 'none' };
  const branches = (input.branches ?? []).flat();
  const errors = CRAWL_PARTS.filter((p) => job.parts[p]?.status !== 'completed').map((p) => ({
    part: p,
    message: job.parts[p]?.message ?? branchMessage(branches, p) ?? `The ${p} did not report an outcome`,
  }));
  const status = errors.length ? 'failed' : 'completed';
  if (job.status === status) return { status };

  const at = now(deps);
  const durationMs = Math.max(0, at.getTime() - Date.parse(job.started_at ?? job.requested_at));
  const scrape = job.parts.scrape?.status === 'completed' ? await deps.results.scrape(job.job_id) : undefined;
  const analysis = job.parts.analysis?.status === 'completed' ? job.parts.analysis : undefined;

  await deps.stats.recordSite(job.account_id, {
    site: siteOf(job.url),
    jobId: job.job_id,
    at: at.toISOString(),
    completed: status === 'completed',
    ...(scrape ? { pagesCrawled: scrape.pages, words: scrape.words } : {}),
    ...(analysis ? { analysis: { analysedAt: analysis.at, ...analysis.figures } } : {}),
  });
  if (scrape && hasGeo(job.context)) {
    const coverage = geoCoverage(await deps.results.pages(job.job_id), job.context);
    await deps.stats.recordGeoCoverage(job.account_id, job.context, { jobId: job.job_id, ...coverage });
  }
  await deps.events.record(job.account_id, {
    jobId: job.job_id,
    type: status === 'completed' ? 'job.completed' : 'job.failed',
    message:
      status === 'completed'
        ? `Crawl of ${job.url} completed in ${(durationMs / 1000).toFixed(1)} s`
        : `Crawl of ${job.url} failed: ${errors.map((e) => e.message).join('; ')}`,
    data: { durationMs, ...(scrape ? { pages: scrape.pages } : {}), ...(errors.length ? { errors } : {}) },
  });
  await deps.jobs.finish(job.job_id, { status, finished_at: at.toISOString(), duration_ms: durationMs, errors, pages_crawled: scrape?.pages });
  return { status };
}

async function jobFor(deps: Pick<CrawlRecords, 'jobs'>, input: CrawlStepInput): Promise<CrawlJob | undefined> {
  const job = await deps.jobs.get(input.jobId);
  // A job of another account is a broken invariant of the state machine's input, not a missing job.
  if (job && job.account_id !== input.accountId) throw new Error(`Crawl job ${input.jobId} does not belong to account ${input.accountId}`);
  return job;
}

/** Runs one part of a job: marks the job started, records the part's outcome (and a failure's event), rethrows failures. */
async function part(deps: RecordsDeps, job: CrawlJob, name: CrawlPart, work: () => Promise<Record<string, unknown>>): Promise<StepResult> {
  const at = () => now(deps).toISOString();
  if (job.status === 'queued' && (await deps.jobs.markStarted(job.job_id, at()))) {
    await deps.events.record(job.account_id, { jobId: job.job_id, type: 'job.started', message: `Crawl of ${job.url} started` });
  }
  try {
    const figures = await work();
    await deps.jobs.recordPart(job.job_id, name, { status: 'completed', at: at(), figures });
    return { outcome: 'success', details: figures };
  } catch (error) {
    const message = error instanceof DomainError ? error.message : `The ${name} failed unexpectedly`;
    await deps.jobs.recordPart(job.job_id, name, { status: 'failed', at: at(), message }).catch(() => undefined);
    await deps.events
      .record(job.account_id, { jobId: job.job_id, type: name === 'analysis' ? 'analysis.failed' : 'scrape.failed', message, data: { error: (error as Error).name } })
      .catch(() => undefined);
    throw error;
  }
}

/** A failed branch's client-safe reason, when the step could not record one (it timed out, or crashed). */
function branchMessage(branches: BranchOutput[], part: CrawlPart): string | undefined {
  const failed = branches.find((b) => b.integration === part && b.outcome === 'failed');
  if (!failed) return undefined;
  return `The ${part} step failed (${failed.error?.Error ?? 'States.TaskFailed'})`;
}

const now = (deps: Clock) => (deps.now ?? (() => new Date()))();
