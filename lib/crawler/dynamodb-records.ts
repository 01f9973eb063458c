// The crawler's records in DynamoDB (tables in infra/dynamodb.yml):
//   crawler_jobs     job_id; GSI byAccount (account_id, requested_at) for "recent jobs"
//   crawler_events   account_id + "<at>#<seq>#<job>#<type>": newest first by key order
//   crawler_results  job_id + "analysis" | "scrape" | "page#0001"...: one item per page keeps each under 400 KB
//   crawler_stats    account_id + "site#<origin>" | "geo#<industry|city|region>"
// Every "once" is a conditional write, so concurrent or repeated steps change
// a record once; events and results expire (TTL clean-up; reads do not rely on it).
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import {
  geoKey,
  type CrawlEvents,
  type CrawlJob,
  type CrawlJobs,
  type CrawlRecords,
  type CrawlResults,
  type CrawlStats,
  type GeoTarget,
  type ScrapeSummary,
  type SiteStats,
} from './records.ts';
import type { ScrapedPage, SiteAnalysis } from './site.ts';

type CrawlerTables = Pick<Tables, 'crawler_jobs' | 'crawler_events' | 'crawler_results' | 'crawler_stats'>;
type Deps = { db: DynamoDBDocumentClient; tables: CrawlerTables; now?: () => Date };

const RETENTION_SECONDS = 90 * 24 * 3600;
const BATCH = 25;


export function dynamodbCrawlRecords({ db, tables, now = () => new Date() }: Deps): CrawlRecords {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/crawler_jobs:GetItem,PutItem,UpdateItem';
  'iam:dynamodb:table/crawler_jobs/index/byAccount:Query';
  'iam:dynamodb:table/crawler_events:PutItem,Query';
  'iam:dynamodb:table/crawler_results:BatchWriteItem,GetItem,PutItem,Query';
  'iam:dynamodb:table/crawler_stats:Query,UpdateItem';
  const expiresAt = () => Math.floor(now().getTime() / 1000) + RETENTION_SECONDS;

  const jobs: CrawlJobs = {
    open: (job) =>
      applied(
        db.send(
          new PutCommand({
            TableName: tables.crawler_jobs,
            Item: { ...job, status: 'queued', parts: {} },
            ConditionExpression: 'attribute_not_exists(job_id)',
          }),
        ),
      ),

    async get(jobId) {
      const res = await db.send(new GetCommand({ TableName: tables.crawler_jobs, Key: { job_id: jobId }, ConsistentRead: true }));
      return res.Item as CrawlJob | undefined;
    },

    markStarted: (jobId, at) =>
      applied(
        db.send(
          new UpdateCommand({
            TableName: tables.crawler_jobs,
            Key: { job_id: jobId },
            UpdateExpression: 'SET #status = :running, started_at = :at',
            ConditionExpression: '#status = :queued',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':at': at },
          }),
        ),
      ),

    async recordPart(jobId, part, state) {
      await db.send(
        new UpdateCommand({
          TableName: tables.crawler_jobs,
          Key: { job_id: jobId },
          UpdateExpression: 'SET parts.#part = :state',
          ConditionExpression: 'attribute_exists(job_id)',
          ExpressionAttributeNames: { '#part': part },
          ExpressionAttributeValues: { ':state': state },
        }),
      );
    },

    finish: (jobId, outcome) =>
      applied(
        db.send(
          new UpdateCommand({
            TableName: tables.crawler_jobs,
            Key: { job_id: jobId },
            UpdateExpression: `SET #status = :status, finished_at = :finished, duration_ms = :duration, #errors = :errors${
              outcome.pages_crawled === undefined ? '' : ', pages_crawled = :pages'
            }`,
            ConditionExpression: 'attribute_exists(job_id) AND #status <> :status',
            ExpressionAttributeNames: { '#status': 'status', '#errors': 'errors' },
            ExpressionAttributeValues: {
              ':status': outcome.status,
              ':finished': outcome.finished_at,
              ':duration': outcome.duration_ms,
              ':errors': outcome.errors,
              ...(outcome.pages_crawled === undefined ? {} : { ':pages': outcome.pages_crawled }),
            },
          }),
        ),
      ),

    async recent(accountId, limit) {
      const res = await db.send(
        new QueryCommand({
          TableName: tables.crawler_jobs,
          IndexName: 'byAccount',
          KeyConditionExpression: 'account_id = :account',
          ExpressionAttributeValues: { ':account': accountId },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (res.Items ?? []) as CrawlJob[];
    },
  };

  // Events of one instance within the same millisecond keep the order they happened in.
  let sequence = 0;
  const events: CrawlEvents = {
    async record(accountId, event) {
      const at = now().toISOString();
      sequence = (sequence + 1) % 1_000_000;
      await db.send(
        new PutCommand({
          TableName: tables.crawler_events,
          Item: {
            account_id: accountId,
            event_id: `${at}#${String(sequence).padStart(6, '0')}#${event.jobId}#${event.type}`,
            at,
            job_id: event.jobId,
            type: event.type,
            message: event.message,
            data: event.data,
            expires_at: expiresAt(),
          },
        }),
      );
    },

    async recent(accountId, limit) {
      const res = await db.send(
        new QueryCommand({
          TableName: tables.crawler_events,
          KeyConditionExpression: 'account_id = :account',
          ExpressionAttributeValues: { ':account': accountId },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (res.Items ?? []).map((i) => ({ at: i.at, jobId: i.job_id, type: i.type, message: i.message, ...(i.data ? { data: i.data } : {}) }));
    },
  };

  const results: CrawlResults = {
    saveAnalysis: (jobId, analysis) =>
      applied(
        db.send(
          new PutCommand({
            TableName: tables.crawler_results,
            Item: { job_id: jobId, item: 'analysis', analysis, expires_at: expiresAt() },
            ConditionExpression: 'attribute_not_exists(job_id)',
          }),
        ),
      ),

    async analysis(jobId) {
      const res = await db.send(new GetCommand({ TableName: tables.crawler_results, Key: { job_id: jobId, item: 'analysis' }, ConsistentRead: true }));
      return res.Item?.analysis as SiteAnalysis | undefined;
    },

    async saveScrape(jobId, summary, pages) {
      const expires = expiresAt();
      const items = pages.map((page, i) => ({ job_id: jobId, item: pageKey(i), seq: i, ...page, expires_at: expires }));
      for (let i = 0; i < items.length; i += BATCH) {
        let requests = items.slice(i, i + BATCH).map((Item) => ({ PutRequest: { Item } }));
        // DynamoDB may leave some items of a batch unprocessed under load; they are sent again.
        for (let attempt = 0; requests.length; attempt++) {
          if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
          const res = await db.send(new BatchWriteCommand({ RequestItems: { [tables.crawler_results]: requests } }));
          requests = (res.UnprocessedItems?.[tables.crawler_results] ?? []) as typeof requests;
          if (attempt > 8 && requests.length) throw new Error('DynamoDB kept pages of the scrape unprocessed');
        }
      }
      // The summary goes last: its presence means every page is stored.
      return applied(
        db.send(
          new PutCommand({
            TableName: tables.crawler_results,
            Item: { job_id: jobId, item: 'scrape', summary, expires_at: expires },
            ConditionExpression: 'attribute_not_exists(job_id)',
          }),
        ),
      );
    },

    async scrape(jobId) {
      const res = await db.send(new GetCommand({ TableName: tables.crawler_results, Key: { job_id: jobId, item: 'scrape' }, ConsistentRead: true }));
      return res.Item?.summary as ScrapeSummary | undefined;
    },

    async pages(jobId) {
      const summary = await results.scrape(jobId);
      if (!summary) return [];
      const items = await queryAll<Record<string, unknown> & { seq: number }>(db, {
        TableName: tables.crawler_results,
        KeyConditionExpression: 'job_id = :job AND begins_with(#item, :page)',
        ExpressionAttributeNames: { '#item': 'item' },
        ExpressionAttributeValues: { ':job': jobId, ':page': 'page#' },
        ConsistentRead: true,
      });
      // Only the pages the summary counts: an interrupted earlier attempt may have left more.
      return items
        .filter((i) => i.seq < summary.pages)
        .sort((a, b) => a.seq - b.seq)
        .map(({ url, title, description, headings, wordCount, text }) => ({ url, title, description, headings, wordCount, text }) as ScrapedPage);
    },
  };

  const stats: CrawlStats = {
    async noteGeoTarget(accountId, context, request) {
      await db.send(
        new UpdateCommand({
          TableName: tables.crawler_stats,
          Key: { account_id: accountId, item: `geo#${geoKey(context)}` },
          UpdateExpression:
            'SET industry = :industry, city = :city, #region = :region, site = :site, last_requested_at = :at, last_job_id = :job, first_requested_at = if_not_exists(first_requested_at, :at) ADD refreshes :one',
          ExpressionAttributeNames: { '#region': 'region' },
          ExpressionAttributeValues: {
            ':industry': context.industry ?? null,
            ':city': context.city ?? null,
            ':region': context.region ?? null,
            ':site': request.site,
            ':at': request.at,
            ':job': request.jobId,
            ':one': 1,
          },
        }),
      );
    },

    async recordGeoCoverage(accountId, context, coverage) {
      await applied(
        db.send(
          new UpdateCommand({
            TableName: tables.crawler_stats,
            Key: { account_id: accountId, item: `geo#${geoKey(context)}` },
            UpdateExpression: 'SET coverage = :coverage',
            ConditionExpression: 'attribute_exists(account_id)',
            ExpressionAttributeValues: { ':coverage': coverage },
          }),
        ),
      );
    },

    async recordSite(accountId, update) {
      const sets = ['site = :site', 'last_job_id = :job', 'last_crawled_at = :at'];
      const values: Record<string, unknown> = { ':site': update.site, ':job': update.jobId, ':at': update.at, ':crawl': update.completed ? 1 : 0 };
      if (update.pagesCrawled !== undefined) {
        sets.push('pages_crawled = :pages', 'words = :words');
        values[':pages'] = update.pagesCrawled;
        values[':words'] = update.words ?? 0;
      }
      if (update.analysis) {
        sets.push('analysis = :analysis');
        values[':analysis'] = update.analysis;
      }
      await db.send(
        new UpdateCommand({
          TableName: tables.crawler_stats,
          Key: { account_id: accountId, item: `site#${update.site}` },
          UpdateExpression: `SET ${sets.join(', ')} ADD crawls :crawl`,
          ExpressionAttributeValues: values,
        }),
      );
    },

    async forAccount(accountId) {
      const items = await queryAll<Record<string, any>>(db, {
        TableName: tables.crawler_stats,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ConsistentRead: true,
      });
      const sites: SiteStats[] = items
        .filter((i) => i.item.startsWith('site#'))
        .map((i) => ({
          site: i.site,
          ...(i.pages_crawled === undefined ? {} : { pagesCrawled: i.pages_crawled, words: i.words }),
          crawls: i.crawls ?? 0,
          lastCrawledAt: i.last_crawled_at,
          lastJobId: i.last_job_id,
          ...(i.analysis ? { analysis: i.analysis } : {}),
        }));
      const geoTargets: GeoTarget[] = items
        .filter((i) => i.item.startsWith('geo#'))
        .map((i) => ({
          ...(i.industry ? { industry: i.industry } : {}),
          ...(i.city ? { city: i.city } : {}),
          ...(i.region ? { region: i.region } : {}),
          site: i.site,
          firstRequestedAt: i.first_requested_at,
          lastRequestedAt: i.last_requested_at,
          refreshes: i.refreshes,
          lastJobId: i.last_job_id,
          ...(i.coverage ? { coverage: i.coverage } : {}),
        }))
        .sort((a, b) => b.lastRequestedAt.localeCompare(a.lastRequestedAt));
      return { sites: sites.sort((a, b) => b.lastCrawledAt.localeCompare(a.lastCrawledAt)), geoTargets };
    },
  };

  return { jobs, events, results, stats };
}

const pageKey = (i: number) => `page#${String(i).padStart(5, '0')}`;
