// Our own crawler, for deployments without a Firecrawl key. Breadth-first
// from the start page, a few requests at a time, within limits that keep one
// crawl inside a Lambda's life:
// - same origin only: the origin of the start page after its redirects
//   (http://acme.com → https://www.acme.com/ crawls https://www.acme.com);
// - robots.txt of that origin is obeyed, for the start page too; while it
//   answers 5xx nothing may be crawled, and the crawl fails saying so;
// - at most `maxPages` pages are fetched, and nothing new starts after `budgetMs`;
// - each request has the fetcher's timeout, size cap and address checks.
// A page that fails is counted and skipped; only an unreadable start page or
// robots.txt (no such host, a blocked address, no answer) fails the crawl.
import { readPage } from './html-page.ts';
import { fetchRobots, type RobotsRules } from './robots.ts';
import { SiteError } from './site-errors.ts';
import type { FetchedPage, SiteFetcher } from './site-fetcher.ts';
import type { ScrapedPage, ScrapeResult, SiteScraper } from './site.ts';

export interface CrawlLimits {
  /** Requests in flight at once. */
  concurrency: number;
  /** No new request starts after this long. */
  budgetMs: number;
  /** The longest text kept per page (a spreadsheet cell holds 32,767 characters). */
  maxTextChars: number;
}

export const DEFAULT_CRAWL_LIMITS: CrawlLimits = { concurrency: 4, budgetMs: 180_000, maxTextChars: 32_000 };

// Addresses that are plainly not pages: not worth a request.
const NOT_PAGES = /\.(pdf|zip|gz|tgz|rar|7z|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|mov|avi|webm|ogg|wav|woff2?|ttf|otf|eot|css|js|json|xml|rss|atom|csv|xlsx?|docx?|pptx?|exe|dmg|apk)$/i;

const isHtml = (page: FetchedPage) => /^(text\/html|application\/xhtml\+xml)\b/i.test(page.contentType);

export function builtinScraper(fetcher: SiteFetcher, limits: CrawlLimits = DEFAULT_CRAWL_LIMITS): SiteScraper {
  return {
    async scrape(startUrl, { maxPages }) {
      const started = performance.now();
      const skipped: Record<string, number> = {};
      const skip = (reason: string) => (skipped[reason] = (skipped[reason] ?? 0) + 1);
      const result = (pages: { order: number; page: ScrapedPage }[]): ScrapeResult => ({
        source: 'crawler',
        startUrl,
        pages: pages.sort((a, b) => a.order - b.order).map((p) => p.page),
        skipped,
      });

      const requestedOrigin = new URL(startUrl).origin;
      let robots = await readableRobots(fetcher, requestedOrigin);
      if (!robots.isAllowed(startUrl)) {
        skip('robots');
        return result([]);
      }

      const home = await fetcher.fetch(startUrl);
      if (home.status >= 400) throw new SiteError('http_error', `The start page answered ${home.status}`, home.status >= 500);
      if (!isHtml(home)) throw new SiteError('not_html', 'The start page is not an HTML page');
      const origin = new URL(home.finalUrl).origin;
      if (origin !== requestedOrigin) {
        robots = await readableRobots(fetcher, origin);
        if (!robots.isAllowed(home.finalUrl)) {
          skip('robots');
          return result([]);
        }
      }

      const seen = new Set<string>([withoutHash(startUrl), withoutHash(home.finalUrl)]);
      const found: { order: number; page: ScrapedPage }[] = [];
      const queue: { url: string; order: number }[] = [];
      let order = 0;
      let visited = 1;

      const enqueueLinks = (links: string[]) => {
        for (const link of links) {
          if (seen.has(link)) continue;
          seen.add(link);
          if (new URL(link).origin !== origin) skip('other-origin');
          else if (NOT_PAGES.test(new URL(link).pathname)) skip('not-html');
          else if (!robots.isAllowed(link)) skip('robots');
          else queue.push({ url: link, order: ++order });
        }
      };
      const take = (page: FetchedPage, at: number) => {
        const facts = readPage(page.body, page.finalUrl);
        found.push({ order: at, page: toScraped(page.finalUrl, facts, limits.maxTextChars) });
        enqueueLinks(facts.links);
      };

      take(home, 0);

      const visit = async (item: { url: string; order: number }) => {
        try {
          const page = await fetcher.fetch(item.url);
          const final = withoutHash(page.finalUrl);
          if (final !== item.url && seen.has(final)) return void skip('duplicate');
          seen.add(final);
          if (new URL(final).origin !== origin) return void skip('other-origin');
          if (!robots.isAllowed(final)) return void skip('robots');
          if (page.status >= 400) return void skip('http-error');
          if (!isHtml(page)) return void skip('not-html');
          take(page, item.order);
        } catch {
          skip('failed');
        }
      };

      const inFlight = new Set<Promise<void>>();
      const outOfTime = () => performance.now() - started > limits.budgetMs;
      for (;;) {
        while (queue.length && inFlight.size < limits.concurrency && visited < maxPages && !outOfTime()) {
          visited++;
          const running: Promise<void> = visit(queue.shift()!).finally(() => inFlight.delete(running));
          inFlight.add(running);
        }
        if (inFlight.size === 0) break;
        await Promise.race(inFlight);
      }
      if (queue.length) skipped['over-limit'] = (skipped['over-limit'] ?? 0) + queue.length;
      return result(found);
    },
  };
}

/** The robots rules of an origin; a robots.txt answering 5xx forbids everything for now, which is a failure to report, not an empty site. */
async function readableRobots(fetcher: SiteFetcher, origin: string): Promise<RobotsRules> {
  const robots = await fetchRobots(fetcher, origin);
  if (robots.serverError) {
    throw new SiteError('robots_unavailable', `${new URL(origin).host} answered ${robots.serverError} for its robots.txt, so nothing may be crawled until it answers again`, true);
  }
  return robots;
}

function withoutHash(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}

export function toScraped(url: string, facts: ReturnType<typeof readPage>, maxTextChars: number): ScrapedPage {
  return {
    url,
    title: facts.title,
    description: facts.description,
    headings: facts.headings,
    wordCount: facts.wordCount,
    text: facts.text.length > maxTextChars ? facts.text.slice(0, maxTextChars) : facts.text,
  };
}
