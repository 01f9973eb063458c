// The Firecrawl adapter against the Firecrawl emulator.
import { beforeEach, describe, expect, it } from 'vitest';
import { firecrawlScraper, retryAfterInMessage } from '../../../lib/crawler/firecrawl-scraper.ts';
import { FIRECRAWL_API_KEY, FIRECRAWL_PAGE_SIZE, firecrawlVendor } from '../../../local/emulators/firecrawl.ts';
import { bakeryRoutes, bakeryRows } from '../../fixtures/bakery-site.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';
import { useSite } from '../../support/site.ts';

const emu = useEmulators(firecrawlVendor);
const site = useSite(bakeryRoutes);
const timing = { firstPollMs: 5, deadlineMs: 10_000, maxTextChars: 32_000 };
const scraper = (apiKey = FIRECRAWL_API_KEY, t = timing) => firecrawlScraper({ apiKey, apiBase: emu.env.FIRECRAWL_API_BASE! }, quickPolicy, t);
const asRows = (pages: { url: string; title: string; description: string; headings: string[]; wordCount: number; text: string }[]) =>
  pages.map((p) => ({ url: p.url, title: p.title, description: p.description, headings: p.headings.join('\n'), word_count: String(p.wordCount), text: p.text }));

interface Crawl {
  id: string;
  url: string;
  limit: number;
  formats: string[];
  status: string;
  pages: string[];
}

describe('the Firecrawl scraper', () => {
  beforeEach(() => emu.reset());

  it('crawls through a job, reads every page of results, and produces the same rows as our own crawler', async () => {
    const result = await scraper().scrape(`${site.origin}/`, { maxPages: 20 });
    const [crawl] = await emu.get<Crawl[]>('crawls');
    expect(crawl).toMatchObject({ url: `${site.origin}/`, limit: 20, formats: ['html'], status: 'completed' });
    expect(crawl!.pages.length).toBeGreaterThan(FIRECRAWL_PAGE_SIZE); // so the results came in several responses
    expect(result.source).toBe('firecrawl');
    expect(result.pages.map((p) => p.url)).toEqual(crawl!.pages);
    expect(asRows(result.pages)).toEqual(bakeryRows(site.origin));
  });

  it('honours the limit', async () => {
    const result = await scraper().scrape(`${site.origin}/`, { maxPages: 2 });
    expect(result.pages).toHaveLength(2);
  });

  it('waits out a throttle as long as the message says (no Retry-After header)', async () => {
    expect(retryAfterInMessage('Rate limit exceeded ... please retry after 12s, resets at ...')).toBe(12_000);
    await emu.fault({ vendor: 'firecrawl', mode: 'throttle', count: 1, retryAfterSeconds: 1, match: '/v2/crawl' });
    const result = await scraper().scrape(`${site.origin}/`, { maxPages: 1 });
    expect(result.pages).toHaveLength(1);
  });

  it('cancels a crawl that does not finish in time, as a transient failure', async () => {
    const error = await scraper(FIRECRAWL_API_KEY, { ...timing, deadlineMs: 0 })
      .scrape(`${site.origin}/`, { maxPages: 20 })
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorUnavailable', vendor: 'firecrawl' });
    expect((await emu.get<Crawl[]>('crawls'))[0]!.status).toBe('cancelled');
  });

  it('is refused with a wrong key', async () => {
    const error = await scraper('fc-wrong').scrape(`${site.origin}/`, { maxPages: 1 }).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected', context: { status: 401 } });
  });

  it('rejects keys its strict schema does not know (so the adapter sends none)', async () => {
    const res = await fetch(`${emu.env.FIRECRAWL_API_BASE}/v2/crawl`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIRECRAWL_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.origin}/`, maxDepth: 2 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ success: false, details: [{ code: 'unrecognized_keys', keys: ['maxDepth'] }] });
  });
});
