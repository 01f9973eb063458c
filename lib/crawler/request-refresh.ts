// A refresh of an account's crawler intelligence: a crawl job with the geo
// context the admin gives (industry, city, region), run by the refresh state
// machine outside the request. The answer is the job id; the summary shows
// the job, its events and the updated figures when it is done.
import type { AccountStore } from '../accounts/accounts.ts';
import { InvalidInput } from '../errors.ts';
import type { Workflow } from '../workflows/workflow.ts';
import { websiteOf } from '../website.ts';
import { newJobId, openCrawlJob } from './crawl-job.ts';
import { geoTerm, tidyTerm, type CrawlRecords, type GeoContext } from './records.ts';
import { requireAccount } from './summary.ts';

export interface RefreshDeps extends Pick<CrawlRecords, 'jobs' | 'events' | 'stats'> {
  accounts: Pick<AccountStore, 'getAccount'>;
  /** The refresh state machine; a job's execution is named after the job. */
  workflow: Pick<Workflow, 'startOrResume'>;
  now?: () => Date;
}

export interface RefreshRequest extends GeoContext {
  url?: string;
}

export async function requestRefresh(deps: RefreshDeps, accountId: string, request: RefreshRequest) {
  const account = await requireAccount(deps.accounts, accountId);
  const url = request.url !== undefined ? siteAddress(request.url) : account.company_url;
  if (!url) throw new InvalidInput('The refresh needs a website', [{ path: '/body/url', message: 'is required: the account has no website on record' }]);
  const context = geoContextOf(request);
  const at = (deps.now ?? (() => new Date()))();
  const jobId = newJobId(at);
  await openCrawlJob(deps, { job_id: jobId, account_id: accountId, kind: 'refresh', url, context, requested_at: at.toISOString() });
  try {
    await deps.workflow.startOrResume(jobId, { accountId, jobId });
  } catch (error) {
    // A job that never started must not look queued forever.
    await deps.jobs.finish(jobId, { status: 'failed', finished_at: new Date().toISOString(), duration_ms: 0, errors: [] }).catch(() => undefined);
    await deps.events.record(accountId, { jobId, type: 'job.failed', message: 'The refresh could not be started' }).catch(() => undefined);
    throw error;
  }
  return { jobId, status: 'queued' as const, url, context };
}

/**
 * "acme.com", "www.acme.com/shop" or "https://acme.com" → an http(s) URL, without its fragment, by the rule
 * onboarding takes a website by (lib/website.ts); anything else is refused.
 */
export function siteAddress(raw: string): string {
  const url = websiteOf(raw.trim());
  if (!url) throw new InvalidInput('The website address is not valid', [{ path: '/body/url', message: 'must be an http(s) website address, e.g. https://example.com' }]);
  url.hash = '';
  return url.href;
}

/**
 * The most bytes a geo term may take (UTF-8, as normalised for its key): the three of them make one
 * sort key, "geo#industry|city|region", which DynamoDB holds up to 1,024 bytes. 100 characters of
 * four bytes each would not fit three times.
 */
const GEO_TERM_MAX_BYTES = 300;

/** The geo context of a refresh, each term trimmed with its spaces folded; a term its key could not hold is refused. */
function geoContextOf(request: RefreshRequest): GeoContext {
  const terms = (['industry', 'city', 'region'] as const).map((k) => [k, tidyTerm(request[k])] as const).filter(([, v]) => v);
  const tooLong = terms.filter(([, v]) => Buffer.byteLength(geoTerm(v)) > GEO_TERM_MAX_BYTES);
  if (tooLong.length) {
    throw new InvalidInput(
      'The geo context is too long',
      tooLong.map(([k]) => ({ path: `/body/${k}`, message: `must be at most ${GEO_TERM_MAX_BYTES} bytes as UTF-8` })),
    );
  }
  return Object.fromEntries(terms);
}
