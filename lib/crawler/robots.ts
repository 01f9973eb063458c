// robots.txt as RFC 9309 says a crawler reads it: the rules come from
// robots-parser (groups, Allow/Disallow with the longest match winning,
// * and $ patterns); which rules apply depends on how the file answered:
// - 2xx: its rules (at most the first 500 KiB are read);
// - 4xx, or lost in more than five redirects: no file, so everything is allowed;
// - 5xx: nothing is allowed for now (the RFC's and Google's reading), and the
//   rules say so (`serverError`), so a crawl can report it rather than an empty site.
// A site that cannot be reached at all (no such host, a blocked address, no
// connection, no answer in time) has no robots.txt to obey: that is the
// fetcher's error, and it is passed on as a failure of the crawl.
import robotsParserExport from 'robots-parser';
import { SiteError } from './site-errors.ts';
import type { SiteFetcher } from './site-fetcher.ts';

// The package is CommonJS and its module.exports is this function (what Node and esbuild import as
// the default); its typings describe an ES module instead.
const robotsParser = robotsParserExport as unknown as (url: string, contents: string) => { isAllowed(url: string, ua?: string): boolean | undefined };

export const CRAWLER_USER_AGENT = 'AgencyCrawler/1.0';
/** The product token a robots.txt group names to address this crawler. */
const PRODUCT_TOKEN = 'AgencyCrawler';
const MAX_ROBOTS_BYTES = 500 * 1024;

export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** The status of a robots.txt that answered 5xx: everything is disallowed until it answers again. */
  serverError?: number;
}

/** Rules from a robots.txt answer (status and body). */
export function robotsRules(robotsUrl: string, answer: { status: number; body: string }): RobotsRules {
  if (answer.status >= 500) return { isAllowed: () => false, serverError: answer.status };
  if (answer.status >= 400) return { isAllowed: () => true };
  if (answer.status < 200 || answer.status >= 300) return { isAllowed: () => false };
  const rules = robotsParser(robotsUrl, answer.body.slice(0, MAX_ROBOTS_BYTES));
  // robots-parser answers undefined for another origin: that is never ours to crawl under these rules.
  return { isAllowed: (url) => rules.isAllowed(url, PRODUCT_TOKEN) === true };
}

/**
 * Fetches and reads the robots.txt of an origin (redirects are followed by the
 * fetcher, as the RFC asks). Throws the fetcher's SiteError when the origin
 * cannot be reached.
 */
export async function fetchRobots(fetcher: SiteFetcher, origin: string): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    return robotsRules(robotsUrl, await fetcher.fetch(robotsUrl));
  } catch (error) {
    // RFC 9309 2.3.1.2: a crawler may take a file behind more than five redirects as unavailable (a 4xx).
    if (error instanceof SiteError && error.code === 'too_many_redirects') return robotsRules(robotsUrl, { status: 404, body: '' });
    throw error;
  }
}
