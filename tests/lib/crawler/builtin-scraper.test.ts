import { describe, expect, it } from 'vitest';
import { builtinScraper, DEFAULT_CRAWL_LIMITS } from '../../../lib/crawler/builtin-scraper.ts';
import { siteFetcher } from '../../../lib/crawler/site-fetcher.ts';
import { bakeryRoutes, bakeryRows } from '../../fixtures/bakery-site.ts';
import { html, useSite } from '../../support/site.ts';
import { stubNetwork } from '../../support/stub-resolver.ts';

const fetcher = siteFetcher({ allowPrivateNetworks: true, timeoutMs: 2000, maxBytes: 1024 * 1024, maxRedirects: 5, userAgent: 'AgencyCrawler/1.0 (test)' }, stubNetwork());
const scraper = builtinScraper(fetcher);
const asRows = (pages: { url: string; title: string; description: string; headings: string[]; wordCount: number; text: string }[]) =>
  pages.map((p) => ({ url: p.url, title: p.title, description: p.description, headings: p.headings.join('\n'), word_count: String(p.wordCount), text: p.text }));

describe('the built-in crawler', () => {
  const bakery = useSite(bakeryRoutes);

  it('crawls the same origin breadth-first, obeying robots.txt, and reads every page', async () => {
    const result = await scraper.scrape(`${bakery.origin}/`, { maxPages: 20 });
    expect(result.source).toBe('crawler');
    expect(asRows(result.pages)).toEqual(bakeryRows(bakery.origin));
    expect(result.skipped).toMatchObject({ robots: 1, 'not-html': 1, 'other-origin': 1 });
    // robots.txt first; nothing forbidden, nothing off-site and no PDF was requested.
    expect(bakery.hits[0]).toBe('/robots.txt');
    expect(bakery.hits).not.toContain('/private/plans');
    expect(bakery.hits).not.toContain('/brochure.pdf');
  });

  it('fetches no more than the page limit', async () => {
    const before = bakery.hits.filter((h) => h !== '/robots.txt').length;
    const result = await scraper.scrape(`${bakery.origin}/`, { maxPages: 2 });
    expect(result.pages.map((p) => p.url)).toEqual([`${bakery.origin}/`, `${bakery.origin}/about`]);
    expect(bakery.hits.filter((h) => h !== '/robots.txt').length - before).toBe(2);
    expect(result.skipped['over-limit']).toBe(2);
  });

  describe('on other sites', () => {
    const other = useSite({
      '/robots.txt': { status: 404 },
      '/': html('<a href="/moved">Moved</a><a href="/gone">Gone</a><a href="/data">Data</a><a href="/slow">Slow</a><p>Home</p>'),
      '/moved': { status: 301, headers: { location: '/' } },
      '/gone': { status: 410, body: 'gone' },
      '/data': { headers: { 'content-type': 'application/json' }, body: '{}' },
      '/slow': { hang: true },
      '/closed': html('<p>x</p>'),
      '/start-redirect': (_req, s) => ({ status: 302, headers: { location: `http://localhost:${s.port}/` } }),
    });
    const blocked = useSite({ '/robots.txt': { body: 'User-agent: *\nDisallow: /\n' }, '/': html('<p>Secret</p>') });
    const down = useSite({ '/robots.txt': { status: 503 }, '/': html('<p>Never read</p>') });
    const broken = useSite({ '/robots.txt': { status: 404 }, '/': { status: 500, body: 'oops' } });

    it('skips pages that redirect to one already seen, fail, or are not HTML, and survives slow ones', async () => {
      const quick = builtinScraper(siteFetcher({ allowPrivateNetworks: true, timeoutMs: 300, maxBytes: 100_000, maxRedirects: 5, userAgent: 't' }, stubNetwork()));
      const result = await quick.scrape(`${other.origin}/`, { maxPages: 10 });
      expect(result.pages.map((p) => p.url)).toEqual([`${other.origin}/`]);
      expect(result.skipped).toEqual({ duplicate: 1, 'http-error': 1, 'not-html': 1, failed: 1 });
    });

    it("crawls the start page's origin after its redirects", async () => {
      const result = await scraper.scrape(`${other.origin}/start-redirect`, { maxPages: 1 });
      expect(result.pages.map((p) => p.url)).toEqual([`http://localhost:${other.port}/`]);
    });

    it('reads nothing from a site whose robots.txt forbids it', async () => {
      expect(await scraper.scrape(`${blocked.origin}/`, { maxPages: 5 })).toMatchObject({ pages: [], skipped: { robots: 1 } });
      expect(blocked.hits).toEqual(['/robots.txt']);
    });

    it('reads nothing while robots.txt answers 5xx, and fails saying so rather than reporting zero pages', async () => {
      await expect(scraper.scrape(`${down.origin}/`, { maxPages: 5 })).rejects.toMatchObject({
        name: 'SiteUnavailable',
        code: 'robots_unavailable',
        message: expect.stringContaining('robots.txt'),
      });
      expect(down.hits).toEqual(['/robots.txt']);
    });

    it('fails, with the reason, for a site it cannot reach, rather than taking it for one whose robots.txt forbids everything', async () => {
      await expect(scraper.scrape('http://127.0.0.1:9/', { maxPages: 5 })).rejects.toMatchObject({ name: 'SiteUnavailable', code: 'unreachable' });
      await expect(scraper.scrape('http://no-such-host.invalid/', { maxPages: 5 })).rejects.toMatchObject({ name: 'SiteRefused', code: 'unresolvable' });
    });

    it('fails when the start page cannot be read', async () => {
      await expect(scraper.scrape(`${broken.origin}/`, { maxPages: 5 })).rejects.toMatchObject({ name: 'SiteUnavailable', code: 'http_error' });
    });
  });

  describe('as a deployed stage builds it (private networks disallowed)', () => {
    const deployed = builtinScraper(siteFetcher({ allowPrivateNetworks: false, timeoutMs: 2000, maxBytes: 1024 * 1024, maxRedirects: 5, userAgent: 't' }, stubNetwork()));

    it('fails with the refusal for a blocked address, rather than reporting a successful crawl of nothing', async () => {
      for (const url of ['http://169.254.169.254/latest/meta-data/', `${bakery.origin}/`]) {
        await expect(deployed.scrape(url, { maxPages: 5 }), url).rejects.toMatchObject({ name: 'SiteRefused', code: 'blocked_address' });
      }
    });
  });

  describe('with a long page', () => {
    const long = useSite({ '/robots.txt': { status: 404 }, '/': html(`<p>${'word '.repeat(5000)}</p>`) });

    it('keeps at most the configured text per page (a spreadsheet cell holds 32,767 characters), counting every word', async () => {
      const result = await builtinScraper(fetcher, { ...DEFAULT_CRAWL_LIMITS, maxTextChars: 100 }).scrape(`${long.origin}/`, { maxPages: 1 });
      expect(result.pages[0]!.text).toHaveLength(100);
      expect(result.pages[0]!.wordCount).toBe(5000);
      expect(DEFAULT_CRAWL_LIMITS.maxTextChars).toBeLessThan(32_767);
    });
  });
});
