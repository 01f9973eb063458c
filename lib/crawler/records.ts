// What the crawler keeps per account: crawl jobs (a refresh, or the crawl of
// an enhanced onboarding), their events, their results (the analysis and the
// scraped pages) and the per-account stats the summary shows (per site, and
// per geo target given on refreshes).
import type { ScrapedPage, SiteAnalysis } from './site.ts';

export type JobKind = 'refresh' | 'onboarding';
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';
/** The two halves of a crawl job, run in parallel. */
export type CrawlPart = 'analysis' | 'scrape';
export const CRAWL_PARTS: readonly CrawlPart[] = ['analysis', 'scrape'];

export interface GeoContext {
  industry?: string;
  city?: string;
  region?: string;
}

export interface PartState {
  status: 'completed' | 'failed';
  at: string;
  /** Key figures of a completed part; the client-safe message of a failed one. */
  figures?: Record<string, unknown>;
  message?: string;
}

export interface CrawlJob {
  job_id: string;
  account_id: string;
  kind: JobKind;
  url: string;
  context: GeoContext;
  status: JobStatus;
  requested_at: string;
  started_at?: string;
  finished_at?: string;
  duration_ms?: number;
  parts: Partial<Record<CrawlPart, PartState>>;
  pages_crawled?: number;
  errors?: { part: CrawlPart; message: string }[];
}

export type NewJob = Pick<CrawlJob, 'job_id' | 'account_id' | 'kind' | 'url' | 'context' | 'requested_at'>;

export interface CrawlJobs {
  /** Creates the job (queued) unless it exists; true when created. */
  open(job: NewJob): Promise<boolean>;
  get(jobId: string): Promise<CrawlJob | undefined>;
  /** queued → running; true for the one caller that moved it. */
  markStarted(jobId: string, at: string): Promise<boolean>;
  recordPart(jobId: string, part: CrawlPart, state: PartState): Promise<void>;
  /** Sets the final status unless the job already has it; true when it changed. */
  finish(jobId: string, outcome: Required<Pick<CrawlJob, 'status' | 'finished_at' | 'duration_ms' | 'errors'>> & Pick<CrawlJob, 'pages_crawled'>): Promise<boolean>;
  /** The account's jobs, newest first. */
  recent(accountId: string, limit: number): Promise<CrawlJob[]>;
}

export type CrawlEventType =
  | 'job.queued'
  | 'job.started'
  | 'analysis.completed'
  | 'analysis.failed'
  | 'scrape.completed'
  | 'scrape.failed'
  | 'upload.completed'
  | 'job.completed'
  | 'job.failed';

export interface CrawlEvent {
  jobId: string;
  type: CrawlEventType;
  message: string;
  data?: Record<string, unknown>;
}

export interface CrawlEvents {
  record(accountId: string, event: CrawlEvent): Promise<void>;
  /** Newest first. */
  recent(accountId: string, limit: number): Promise<(CrawlEvent & { at: string })[]>;
}

export interface ScrapeSummary {
  source: 'crawler' | 'firecrawl';
  startUrl: string;
  pages: number;
  words: number;
  skipped: Record<string, number>;
  finishedAt: string;
}

export interface CrawlResults {
  /** Stores the job's analysis unless it has one; true when stored. */
  saveAnalysis(jobId: string, analysis: SiteAnalysis): Promise<boolean>;
  analysis(jobId: string): Promise<SiteAnalysis | undefined>;
  /** Stores the pages, then the summary that says they are complete; true when this call stored it. */
  saveScrape(jobId: string, summary: ScrapeSummary, pages: ScrapedPage[]): Promise<boolean>;
  scrape(jobId: string): Promise<ScrapeSummary | undefined>;
  /** The pages of a complete scrape, in crawl order. */
  pages(jobId: string): Promise<ScrapedPage[]>;
}

export interface SiteStats {
  site: string;
  pagesCrawled?: number;
  words?: number;
  /** Completed crawl jobs of this site. */
  crawls: number;
  lastCrawledAt: string;
  lastJobId: string;
  analysis?: Record<string, unknown> & { analysedAt: string };
}

export interface GeoTarget extends GeoContext {
  site: string;
  firstRequestedAt: string;
  lastRequestedAt: string;
  refreshes: number;
  lastJobId: string;
  /** How many crawled pages mention each term, from the last completed crawl with this target. */
  coverage?: { jobId: string; pagesChecked: number; mentions: Partial<Record<keyof GeoContext, number>> };
}

export interface CrawlStats {
  noteGeoTarget(accountId: string, context: GeoContext, request: { jobId: string; site: string; at: string }): Promise<void>;
  recordGeoCoverage(accountId: string, context: GeoContext, coverage: NonNullable<GeoTarget['coverage']>): Promise<void>;
  /** Updates a site's figures from a finished job; a completed job also counts as a crawl. */
  recordSite(accountId: string, update: { site: string; jobId: string; at: string; completed: boolean; pagesCrawled?: number; words?: number; analysis?: SiteStats['analysis'] }): Promise<void>;
  forAccount(accountId: string): Promise<{ sites: SiteStats[]; geoTargets: GeoTarget[] }>;
}

export interface CrawlRecords {
  jobs: CrawlJobs;
  events: CrawlEvents;
  results: CrawlResults;
  stats: CrawlStats;
}

/** The site a URL belongs to, as stats group it. */
export const siteOf = (url: string) => new URL(url).origin;

/** A geo term as a job keeps it: trimmed, its spaces folded. */
export const tidyTerm = (term: string | undefined) => (term ?? '').trim().replace(/\s+/g, ' ');

/** A geo term as its key holds it: tidied, lower case. */
export const geoTerm = (term: string | undefined) => tidyTerm(term).toLowerCase();

/** Geo targets are one per combination of terms, whatever their case or spacing. */
export const geoKey = (context: GeoContext) => [context.industry, context.city, context.region].map(geoTerm).join('|');

export const hasGeo = (context: GeoContext) => Boolean(context.industry || context.city || context.region);
