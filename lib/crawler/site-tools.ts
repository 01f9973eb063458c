// Which analyzer and scraper this deployment uses: the vendors when their keys
// are configured, else our own measurement and crawler, which need nothing
// but the network and stay inside the address rules of the fetcher.
import { config } from '../config.ts';
import { policyFrom } from '../integrations/http-client.ts';
import { builtinScraper } from './builtin-scraper.ts';
import { firecrawlScraper } from './firecrawl-scraper.ts';
import { measurementAnalyzer } from './page-measurement.ts';
import { pagespeedAnalyzer } from './pagespeed-analyzer.ts';
import { CRAWLER_USER_AGENT } from './robots.ts';
import { siteFetcher } from './site-fetcher.ts';
import type { SiteAnalyzer, SiteScraper } from './site.ts';

const vendorPolicy = policyFrom(config.vendors);

/** Per request: a slow page must not eat a crawl's time, and no page needs more than 5 MiB. */
const fetcher = siteFetcher({
  allowPrivateNetworks: config.crawler.allowPrivateNetworks,
  timeoutMs: 10_000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: `${CRAWLER_USER_AGENT} (+${config.urls.portal || 'https://example.com'})`,
});

export const siteAnalyzer = (): SiteAnalyzer =>
  config.crawler.pagespeed ? pagespeedAnalyzer(config.crawler.pagespeed, vendorPolicy) : measurementAnalyzer(fetcher);

export const siteScraper = (): SiteScraper =>
  config.crawler.firecrawl ? firecrawlScraper(config.crawler.firecrawl, vendorPolicy) : builtinScraper(fetcher);

export const maxPages = config.crawler.maxPages;
