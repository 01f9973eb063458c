// Our own measurement of a page, for deployments without a PageSpeed key:
// one real request, timed, and the page read for what it loads and says.
// It is a server-side measurement (no rendering, no layout), so the
// Lighthouse lab figures stay null rather than being guessed.
import { readPage } from './html-page.ts';
import type { SiteFetcher } from './site-fetcher.ts';
import type { SiteAnalysis, SiteAnalyzer } from './site.ts';

export function measurementAnalyzer(fetcher: SiteFetcher, now: () => Date = () => new Date()): SiteAnalyzer {
  return {
    async analyse(url) {
      const page = await fetcher.fetch(url);
      return measurementOf(page, now());
    },
  };
}

export function measurementOf(page: Awaited<ReturnType<SiteFetcher['fetch']>>, at: Date): SiteAnalysis {
  const html = /^(text\/html|application\/xhtml\+xml)\b/i.test(page.contentType);
  const facts = html ? readPage(page.body, page.finalUrl) : undefined;
  return {
    source: 'measurement',
    url: page.url,
    finalUrl: page.finalUrl,
    analysedAt: at.toISOString(),
    https: new URL(page.finalUrl).protocol === 'https:',
    status: page.status,
    ttfbMs: page.ttfbMs,
    totalMs: page.totalMs,
    bytes: page.bytes,
    scripts: facts?.scripts ?? null,
    stylesheets: facts?.stylesheets ?? null,
    images: facts?.images ?? null,
    title: facts ? facts.title || null : null,
    description: facts ? facts.description || null : null,
    mobile: null,
    desktop: null,
  };
}
