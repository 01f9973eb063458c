// The crawler refresh state machine: one crawl job of crawler intelligence.
// The analysis and the scrape are the registry's (lib/provisioning/registry.ts),
// with its retry policies, here working for a job rather than a run.
//
//   Crawl (AnalyseSite ∥ ScrapeSite, each caught) ─► FinishCrawlJob ─► JobCompleted? ─► Crawled | CrawlFailed
import type { LambdaSpec } from '../lib/lambda-spec.ts';
import { integrations, type Integration } from '../lib/provisioning/registry.ts';
import { bookkeepingRetry, catchAll, failedOutcome, integrationTask, lambdaTask, STEP_ANSWER, stateOf, type Machine } from './asl.ts';

const JOB_INPUT = { 'accountId.$': '$.accountId', 'jobId.$': '$.jobId' };

/** Its step besides the registry's analysis and scrape; the enhanced onboarding's Gather stage ends with it too. */
export const crawlerRefreshSteps: readonly LambdaSpec[] = [{ handler: 'functions/crawler/steps/finish-crawl-job.ts', timeout: 60 }];

function crawlBranch(key: Integration) {
  const spec = integrations[key];
  const task = stateOf(spec.step);
  return {
    StartAt: task,
    States: {
      [task]: integrationTask(spec, JOB_INPUT, { ResultSelector: STEP_ANSWER, Catch: catchAll(`${task}Failed`), End: true }),
      [`${task}Failed`]: failedOutcome(key),
    },
  };
}

export const crawlerRefreshMachine: Machine = {
  Comment:
    "One crawl job of crawler intelligence: the analysis and the scrape of the job's site in parallel (each retried on transient failures, a lasting " +
    "failure caught), then FinishCrawlJob, which sets the job's status, its event and the account's stats. The execution is named after the job, and " +
    'ends FAILED when the job did.',
  StartAt: 'Crawl',
  // The longest a job may take: both steps' every retry, with room to spare.
  TimeoutSeconds: 1800,
  States: {
    Crawl: {
      Type: 'Parallel',
      ResultPath: '$.crawl',
      Next: 'FinishCrawlJob',
      Branches: (['analysis', 'scrape'] as const).map(crawlBranch),
    },
    FinishCrawlJob: lambdaTask('finish-crawl-job', {
      parameters: { ...JOB_INPUT, 'branches.$': '$.crawl' },
      timeoutSeconds: 60,
      retry: bookkeepingRetry,
      ResultPath: '$.job',
      Next: 'JobCompleted?',
    }),
    'JobCompleted?': {
      Type: 'Choice',
      Choices: [{ Variable: '$.job.status', StringEquals: 'completed', Next: 'Crawled' }],
      Default: 'CrawlFailed',
    },
    Crawled: { Type: 'Succeed' },
    CrawlFailed: { Type: 'Fail', Error: 'CrawlFailed', Cause: "The analysis or the scrape failed; the crawl job's events say why" },
  },
};
