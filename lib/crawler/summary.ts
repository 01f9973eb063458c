// The admin dashboard's view of an account's crawler intelligence.
import type { Account, AccountStore } from '../accounts/accounts.ts';
import { NotFound } from '../errors.ts';
import type { CrawlJob, CrawlRecords } from './records.ts';

export const RECENT_JOBS = 10;
export const RECENT_EVENTS = 25;

export interface SummaryDeps extends Pick<CrawlRecords, 'jobs' | 'events' | 'stats'> {
  accounts: Pick<AccountStore, 'getAccount'>;
}

export async function crawlerSummary(deps: SummaryDeps, accountId: string) {
  await requireAccount(deps.accounts, accountId);
  const [{ sites, geoTargets }, jobs, events] = await Promise.all([
    deps.stats.forAccount(accountId),
    deps.jobs.recent(accountId, RECENT_JOBS),
    deps.events.recent(accountId, RECENT_EVENTS),
  ]);
  return { stats: sites, recentJobs: jobs.map(jobView), recentEvents: events, geoTargets };
}

function jobView(job: CrawlJob) {
  return {
    jobId: job.job_id,
    kind: job.kind,
    url: job.url,
    status: job.status,
    context: job.context,
    requestedAt: job.requested_at,
    ...(job.started_at ? { startedAt: job.started_at } : {}),
    ...(job.finished_at ? { finishedAt: job.finished_at } : {}),
    ...(job.duration_ms !== undefined ? { durationMs: job.duration_ms } : {}),
    ...(job.pages_crawled !== undefined ? { pagesCrawled: job.pages_crawled } : {}),
    ...(job.parts.analysis?.figures ? { analysis: job.parts.analysis.figures } : {}),
    ...(job.errors?.length ? { errors: job.errors } : {}),
  };
}

/** The account a path names; anything that cannot be an account id is not found either (and never reaches a key lookup). */
export async function requireAccount(accounts: Pick<AccountStore, 'getAccount'>, accountId: string): Promise<Account> {
  const account = /^[A-Za-z0-9-]{1,64}$/.test(accountId) ? await accounts.getAccount(accountId) : undefined;
  if (!account) throw new NotFound('No account with this id');
  return account;
}
