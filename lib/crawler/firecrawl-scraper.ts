// Firecrawl v2 (vendor-contracts §9): start a crawl job, poll it, then read
// its documents page by page (`next`). Each document comes back as the main
// content's HTML, which goes through the same page reader as our own crawler,
// so both scrapers produce the same rows. Firecrawl's schemas are strict
// (an unknown key is a 400), so only documented keys are sent; its 429 has no
// Retry-After, only "retry after Ns" in the message.
import { VendorError } from '../errors.ts';
import { vendorHttp } from '../integrations/http-client.ts';
import type { RetryPolicy } from '../integrations/retry.ts';
import { toScraped } from './builtin-scraper.ts';
import { readPage } from './html-page.ts';
import type { ScrapedPage, SiteScraper } from './site.ts';

interface Settings {
  apiKey: string;
  apiBase: string;
}

export interface FirecrawlTiming {
  /** Wait between status polls (doubles up to 5 s). */
  firstPollMs: number;
  /** Give up (and cancel the job) after this long. */
  deadlineMs: number;
  maxTextChars: number;
  sleep?: (ms: number) => Promise<void>;
}

interface FirecrawlDocument {
  html?: string;
  markdown?: string;
  metadata?: { title?: string | string[]; description?: string | string[]; sourceURL?: string; url?: string; statusCode?: number };
}
interface CrawlStatus {
  success?: boolean;
  status?: 'scraping' | 'completed' | 'failed' | 'cancelled';
  next?: string | null;
  data?: FirecrawlDocument[];
}

const DEFAULT_TIMING: FirecrawlTiming = { firstPollMs: 1000, deadlineMs: 240_000, maxTextChars: 32_000 };

export function firecrawlScraper(settings: Settings, policy: RetryPolicy & { timeoutMs: number }, timing: FirecrawlTiming = DEFAULT_TIMING): SiteScraper {
  const sleep = timing.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const base = new URL(settings.apiBase);
  const http = vendorHttp({
    vendor: 'firecrawl',
    baseUrl: settings.apiBase,
    headers: () => ({ authorization: `Bearer ${settings.apiKey}` }),
    policy,
    errorCode: (body) => (body as { code?: string } | undefined)?.code,
    retryHint: (_res, body) => retryAfterInMessage((body as { error?: unknown } | undefined)?.error),
  });

  const refuse = (operation: string, code: string, transient = false) =>
    new VendorError('firecrawl', `firecrawl: ${operation} ${transient ? 'did not finish in time' : `ended ${code}`}`, { transient, operation, vendorCode: code });

  /** A `next` link, kept on our configured origin: our key never goes to a host the vendor names. */
  const onOurOrigin = (next: string) => {
    const url = new URL(next, base);
    const prefix = base.pathname.replace(/\/+$/, '');
    const path = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
    return `${path}${url.search}`;
  };

  return {
    async scrape(url, { maxPages }) {
      const started = await http<{ success?: boolean; id?: string }>('start a crawl', {
        path: '/v2/crawl',
        json: { url, limit: maxPages, allowSubdomains: false, scrapeOptions: { formats: ['html'], onlyMainContent: true } },
        // A lost answer would leave a job we cannot name; a second one would bill the crawl twice.
        repeatable: false,
      });
      const id = started.body.id;
      if (!started.body.success || !id) throw refuse('start a crawl', 'without a job id');

      const deadline = performance.now() + timing.deadlineMs;
      let wait = timing.firstPollMs;
      let status: CrawlStatus;
      for (;;) {
        status = (await http<CrawlStatus>('check the crawl', { path: `/v2/crawl/${encodeURIComponent(id)}` })).body;
        if (status.status === 'completed') break;
        if (status.status === 'failed' || status.status === 'cancelled') throw refuse('the crawl', status.status);
        if (performance.now() + wait > deadline) {
          await http('cancel the crawl', { method: 'DELETE', path: `/v2/crawl/${encodeURIComponent(id)}` }).catch(() => undefined);
          throw refuse('the crawl', 'timeout', true);
        }
        await sleep(wait);
        wait = Math.min(wait * 2, 5000);
      }

      const documents = [...(status.data ?? [])];
      for (let next = status.next; next; ) {
        const page = (await http<CrawlStatus>('read crawl results', { path: onOurOrigin(next) })).body;
        documents.push(...(page.data ?? []));
        next = page.next;
      }

      const pages: ScrapedPage[] = [];
      let failed = 0;
      for (const doc of documents) {
        const pageUrl = doc.metadata?.url ?? doc.metadata?.sourceURL;
        if (!pageUrl || (doc.metadata?.statusCode ?? 200) >= 400) {
          failed++;
          continue;
        }
        const facts = readPage(doc.html ?? '', pageUrl);
        pages.push({
          ...toScraped(pageUrl, facts, timing.maxTextChars),
          // The metadata carries the head of the page; the HTML only its main content.
          title: firstOf(doc.metadata?.title) || facts.title,
          description: firstOf(doc.metadata?.description) || facts.description,
        });
      }
      const skipped: Record<string, number> = failed ? { failed } : {};
      return { source: 'firecrawl', startUrl: url, pages, skipped };
    },
  };
}

function firstOf(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
}

/** Firecrawl's throttle says "... retry after 12s ..." in its message; nothing in its headers. */
export function retryAfterInMessage(message: unknown): number | undefined {
  const seconds = typeof message === 'string' ? /retry after (\d+(?:\.\d+)?)\s*s/i.exec(message)?.[1] : undefined;
  return seconds === undefined ? undefined : Number(seconds) * 1000;
}
