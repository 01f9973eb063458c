// The routes of crawler intelligence.
import { idParam, route } from '../http/route.ts';

const term = { type: 'string', minLength: 1, maxLength: 100 } as const;
const refreshBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048, description: "The site to crawl; default: the account's company website" },
    industry: term,
    city: term,
    region: term,
  },
} as const;

const figures = { type: 'object', description: 'Key figures of the analysis (see the enhanced onboarding details)' } as const;
const summary = {
  type: 'object',
  required: ['success', 'summary'],
  properties: {
    success: { const: true },
    summary: {
      type: 'object',
      required: ['stats', 'recentJobs', 'recentEvents', 'geoTargets'],
      properties: {
        stats: {
          type: 'array',
          description: 'One entry per crawled site (origin), most recently crawled first',
          items: {
            type: 'object',
            required: ['site', 'crawls', 'lastCrawledAt', 'lastJobId'],
            properties: {
              site: { type: 'string' },
              pagesCrawled: { type: 'integer' },
              words: { type: 'integer' },
              crawls: { type: 'integer', description: 'Completed crawl jobs' },
              lastCrawledAt: { type: 'string', format: 'date-time' },
              lastJobId: { type: 'string' },
              analysis: figures,
            },
          },
        },
        recentJobs: {
          type: 'array',
          description: 'Newest first',
          items: {
            type: 'object',
            required: ['jobId', 'kind', 'url', 'status', 'context', 'requestedAt'],
            properties: {
              jobId: { type: 'string' },
              kind: { enum: ['refresh', 'onboarding'] },
              url: { type: 'string' },
              status: { enum: ['queued', 'running', 'completed', 'failed'] },
              context: { type: 'object', properties: { industry: { type: 'string' }, city: { type: 'string' }, region: { type: 'string' } } },
              requestedAt: { type: 'string', format: 'date-time' },
              startedAt: { type: 'string', format: 'date-time' },
              finishedAt: { type: 'string', format: 'date-time' },
              durationMs: { type: 'integer' },
              pagesCrawled: { type: 'integer' },
              analysis: figures,
              errors: { type: 'array', items: { type: 'object', properties: { part: { type: 'string' }, message: { type: 'string' } } } },
            },
          },
        },
        recentEvents: {
          type: 'array',
          description: 'Newest first',
          items: {
            type: 'object',
            required: ['at', 'jobId', 'type', 'message'],
            properties: {
              at: { type: 'string', format: 'date-time' },
              jobId: { type: 'string' },
              type: { type: 'string', description: 'job.queued, job.started, analysis.completed|failed, scrape.completed|failed, upload.completed, job.completed|failed' },
              message: { type: 'string' },
              data: { type: 'object' },
            },
          },
        },
        geoTargets: {
          type: 'array',
          description: 'One per combination of industry, city and region given on refreshes, most recently requested first',
          items: {
            type: 'object',
            required: ['site', 'firstRequestedAt', 'lastRequestedAt', 'refreshes', 'lastJobId'],
            properties: {
              industry: { type: 'string' },
              city: { type: 'string' },
              region: { type: 'string' },
              site: { type: 'string' },
              firstRequestedAt: { type: 'string', format: 'date-time' },
              lastRequestedAt: { type: 'string', format: 'date-time' },
              refreshes: { type: 'integer' },
              lastJobId: { type: 'string' },
              coverage: {
                type: 'object',
                description: 'Of the pages of the last completed crawl with this target, how many mention each term',
                properties: { jobId: { type: 'string' }, pagesChecked: { type: 'integer' }, mentions: { type: 'object' } },
              },
            },
          },
        },
      },
    },
  },
} as const;

const refreshed = {
  type: 'object',
  required: ['success', 'accountId', 'jobId', 'status', 'url', 'context', 'summaryUrl'],
  properties: {
    success: { const: true },
    accountId: { type: 'string' },
    jobId: { type: 'string', description: 'The crawl job, and the name of its Step Functions execution' },
    status: { const: 'queued' },
    url: { type: 'string' },
    context: { type: 'object' },
    summaryUrl: { type: 'string', format: 'uri' },
  },
} as const;

const adminRefusals = {
  401: { description: 'No admin key and no bearer token, or an invalid one' },
  403: { description: 'A signed-in user who is not an admin' },
} as const;

export const crawlerRoutes = {
  crawlerSummary: route({
    method: 'GET',
    path: '/api/crawler/accounts/{accountId}/summary',
    params: { type: 'object', required: ['accountId'], properties: { accountId: idParam } },
    operationId: 'crawlerSummary',
    lambda: { handler: 'functions/crawler/crawler-summary.ts' },
    summary: "An account's crawler intelligence: per-site figures, recent jobs and events, geo targets",
    tag: 'crawler',
    access: { who: 'admin' },
    responses: { 200: { description: 'The summary', schema: summary }, ...adminRefusals, 404: { description: 'No such account' } },
  }),
  crawlerRefresh: route({
    method: 'POST',
    path: '/api/crawler/accounts/{accountId}/refresh',
    params: { type: 'object', required: ['accountId'], properties: { accountId: idParam } },
    operationId: 'crawlerRefresh',
    lambda: { handler: 'functions/crawler/crawler-refresh.ts' },
    summary: 'Start a crawl job (analysis and scrape) of the account\'s site with industry and location context',
    tag: 'crawler',
    access: { who: 'admin' },
    body: refreshBody,
    responses: {
      202: { description: 'The job is queued; the summary shows it, its events and its figures when done', schema: refreshed },
      400: { description: 'An invalid address or field, or no address given for an account without a website' },
      ...adminRefusals,
      404: { description: 'No such account' },
    },
  }),
};
