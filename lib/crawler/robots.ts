// robots.txt as RFC 9309 says a crawler reads it: the rules come from
// robots-parser (groups, Allow/Disallow with the longest match winning,
// * and $ patterns); which rules apply depends on how the file answered:
// - 2xx: its rules (at most the first 500 KiB are read);
// - 4xx: no file, so everything is allowed;
// - 5xx or no answer at all: the site is unreachable, so nothing is allowed.
import robotsParserExport from 'robots-parser';
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
}

/** Rules from a robots.txt answer (status and body). */
export function robotsRules(robotsUrl: string, answer: { status: number; body: string } | 'unreachable'): RobotsRules {
  if (answer === 'unreachable' || answer.status >= 500) return { isAllowed: () => false };
  if (answer.status >= 400) return { isAllowed: () => true };
  if (answer.status < 200 || answer.status >= 300) return { isAllowed: () => false };
  const rules = robotsParser(robotsUrl, answer.body.slice(0, MAX_ROBOTS_BYTES));
  // robots-parser answers undefined for another origin: that is never ours to crawl under these rules.
  return { isAllowed: (url) => rules.isAllowed(url, PRODUCT_TOKEN) === true };
}

/** Fetches and reads the robots.txt of an origin (redirects are followed by the fetcher, as the RFC asks). */
export async function fetchRobots(fetcher: SiteFetcher, origin: string): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    const answer = await fetcher.fetch(robotsUrl);
    return robotsRules(robotsUrl, answer);
  } catch {
    return robotsRules(robotsUrl, 'unreachable');
  }
}
