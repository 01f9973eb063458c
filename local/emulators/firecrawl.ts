// Firecrawl v2 as our scraper adapter calls it (vendor-contracts §9), under
// /firecrawl: POST /v2/crawl starts a job that really fetches the site (same
// origin, breadth-first, robots.txt obeyed, up to `limit` pages), GET /v2/crawl/{id} answers
// "scraping" on its first poll and then the documents, a few per response
// with an absolute `next` link (so paging is exercised on small sites),
// DELETE cancels. Bodies are checked strictly as Firecrawl's zod schemas are
// (unknown keys → 400 unrecognized_keys, ../shared/vendor-apis/firecrawl-v2.json);
// errors are {success:false, error}; a throttle is a
// 429 whose only hint is "retry after Ns" in the message, no Retry-After.
// The local stack points the service here but leaves the key unset, so the
// built-in crawler runs unless FIRECRAWL_API_KEY is set to the key below.
import { Hono, type Context } from 'hono';
import { randomUUID } from 'node:crypto';
import { declaredOnly, type Fields } from './declared.ts';
import { fetchSite } from './fetch-site.ts';
import type { VendorEmulator } from './host.ts';
import type { EmulatorContext, LocalVendor } from './index.ts';

export const FIRECRAWL_API_KEY = 'fc-local-firecrawl-key';
/** Documents per status response: small, so `next` paging happens on a fixture site. */
export const FIRECRAWL_PAGE_SIZE = 3;

export const FIRECRAWL_DIFFERENCES = [
  'Crawls with a plain breadth-first fetch of the origin (robots.txt obeyed, no JavaScript, no proxies); formats html and markdown only, the markdown a crude text dump.',
  'Refuses undeclared query parameters (skip and limit are declared) and unknown routes with a 404; Firecrawl itself checks only bodies strictly.',
  'The first status poll always answers scraping; pages come three per response, so `next` paging always happens.',
];

// The scrape options firecrawl-v2.json declares inside a crawl (strict: anything else is a 400).
const SCRAPE_OPTIONS: Fields = Object.fromEntries(
  [
    'formats', 'headers', 'includeTags', 'excludeTags', 'onlyMainContent', 'timeout', 'waitFor', 'mobile', 'parsers', 'actions', 'location',
    'skipTlsVerification', 'removeBase64Images', 'fastMode', 'useMock', 'blockAds', 'proxy', 'maxAge', 'storeInCache',
  ].map((name) => [name, 'any']),
);
const CRAWL_FIELDS: Fields = {
  ...Object.fromEntries(
    [
      'url', 'includePaths', 'excludePaths', 'maxDiscoveryDepth', 'limit', 'crawlEntireDomain', 'allowExternalLinks', 'allowSubdomains',
      'ignoreRobotsTxt', 'sitemap', 'deduplicateSimilarURLs', 'ignoreQueryParameters', 'regexOnFullURL', 'delay', 'origin', 'integration',
      'webhook', 'maxConcurrency', 'zeroDataRetention', 'prompt',
    ].map((name) => [name, 'any']),
  ),
  scrapeOptions: SCRAPE_OPTIONS,
};

interface Document {
  html?: string;
  markdown?: string;
  metadata: { title: string; description: string; sourceURL: string; url: string; statusCode: number; contentType: string };
}
interface Job {
  id: string;
  url: string;
  limit: number;
  formats: string[];
  onlyMainContent: boolean;
  status: 'scraping' | 'completed' | 'failed' | 'cancelled';
  polls: number;
  documents: Document[];
  createdAt: string;
}

export function firecrawlEmulator(ctx: EmulatorContext): VendorEmulator {
  let jobs: Job[] = [];
  const running = new Map<string, Promise<void>>();
  const app = new Hono().basePath('/firecrawl');
  const fail = (c: Context, status: 400 | 401 | 404, error: string, details?: unknown) => c.json({ success: false, error, ...(details ? { details } : {}) }, status);

  app.use('*', async (c, next) => {
    if (c.req.header('authorization') !== `Bearer ${FIRECRAWL_API_KEY}`) return fail(c, 401, 'Unauthorized: Invalid token');
    await next();
  });
  app.use(
    '*',
    declaredOnly({
      base: '/firecrawl',
      operations: [
        { method: 'POST', path: '/v2/crawl', body: CRAWL_FIELDS },
        { method: 'GET', path: '/v2/crawl/:id', query: ['skip', 'limit'] },
        { method: 'DELETE', path: '/v2/crawl/:id' },
      ],
      refuse: (c, undeclared) => {
        if (undeclared.kind === 'operation') return fail(c, 404, `Cannot ${undeclared.method} ${undeclared.path}`);
        const path = undeclared.kind === 'query' ? [undeclared.name] : undeclared.path;
        return fail(c, 400, 'Bad Request', [
          {
            code: 'unrecognized_keys',
            keys: [path.at(-1)],
            path: path.slice(0, -1),
            message: 'Unrecognized key in body -- please review the v2 API documentation for request body changes',
          },
        ]);
      },
    }),
  );

  app.post('/v2/crawl', async (c) => {
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body || typeof body !== 'object') return fail(c, 400, 'Bad Request', [{ message: 'Invalid JSON body' }]);
    const scrapeOptions = (body.scrapeOptions ?? {}) as Record<string, unknown>;
    const url = typeof body.url === 'string' ? body.url : '';
    if (!/^https?:\/\//i.test(url)) return fail(c, 400, 'Bad Request', [{ code: 'invalid_string', path: ['url'], message: 'Invalid URL' }]);
    const limit = typeof body.limit === 'number' && body.limit > 0 ? Math.floor(body.limit) : 10000;
    const formats = Array.isArray(scrapeOptions.formats) ? (scrapeOptions.formats as unknown[]).filter((f): f is string => typeof f === 'string') : ['markdown'];
    const job: Job = {
      id: randomUUID(),
      url,
      limit,
      formats,
      onlyMainContent: scrapeOptions.onlyMainContent !== false,
      status: 'scraping',
      polls: 0,
      documents: [],
      createdAt: new Date().toISOString(),
    };
    jobs.push(job);
    running.set(
      job.id,
      crawl(job).then(
        () => void (job.status === 'scraping' && (job.status = 'completed')),
        () => void (job.status = 'failed'),
      ),
    );
    return c.json({ success: true, id: job.id, url: `${ctx.hostUrl}/firecrawl/v2/crawl/${job.id}` });
  });

  app.get('/v2/crawl/:id', async (c) => {
    const job = jobs.find((j) => j.id === c.req.param('id'));
    if (!job) return fail(c, 404, 'Job not found');
    job.polls += 1;
    // The first poll always finds the job still scraping, as a real crawl would be.
    if (job.polls === 1) await Promise.race([running.get(job.id), new Promise((r) => setTimeout(r, 50))]);
    else await running.get(job.id);
    const status = job.polls === 1 && job.status === 'completed' ? 'scraping' : job.status;
    const skip = Math.max(0, Number(c.req.query('skip') ?? 0) || 0);
    const data = status === 'completed' ? job.documents.slice(skip, skip + FIRECRAWL_PAGE_SIZE) : [];
    const more = status === 'completed' && skip + FIRECRAWL_PAGE_SIZE < job.documents.length;
    return c.json({
      success: true,
      status,
      completed: job.documents.length,
      total: job.documents.length,
      creditsUsed: job.documents.length,
      expiresAt: new Date(Date.parse(job.createdAt) + 24 * 3600_000).toISOString(),
      ...(more ? { next: `${ctx.hostUrl}/firecrawl/v2/crawl/${job.id}?skip=${skip + FIRECRAWL_PAGE_SIZE}` } : {}),
      data,
    });
  });

  app.delete('/v2/crawl/:id', (c) => {
    const job = jobs.find((j) => j.id === c.req.param('id'));
    if (!job) return fail(c, 404, 'Job not found');
    job.status = 'cancelled';
    return c.json({ success: true, status: 'cancelled' });
  });

  return {
    vendor: 'firecrawl',
    prefixes: ['/firecrawl'],
    app,
    records: {
      crawls: () =>
        [...jobs].reverse().map((j) => ({ id: j.id, url: j.url, limit: j.limit, formats: j.formats, status: j.status, pages: j.documents.map((d) => d.metadata.url) })),
    },
    failure: (c) => c.json({ success: false, error: 'An unexpected error occurred. Please contact help@firecrawl.com for help. Your exception ID is local' }, 500),
    throttle: (c, seconds) =>
      c.json(
        {
          success: false,
          error: `Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after ${seconds}s, resets at ${new Date(Date.now() + seconds * 1000).toUTCString()}`,
        },
        429,
      ),
    reset: () => {
      jobs = [];
      running.clear();
    },
    differences: FIRECRAWL_DIFFERENCES,
    dump: () => jobs,
    load: (saved) => {
      jobs = (saved as Job[]).map((j) => (j.status === 'scraping' ? { ...j, status: 'failed' as const } : j));
    },
  };
}

/**
 * A plain breadth-first crawl of the job's origin that, as Firecrawl does,
 * keeps out of what robots.txt disallows for everyone: enough to answer like
 * Firecrawl, not a second crawler to trust.
 */
async function crawl(job: Job): Promise<void> {
  const origin = new URL(job.url).origin;
  const disallowed = await disallowedPaths(origin);
  const queue = [job.url];
  const seen = new Set(queue);
  while (queue.length && job.documents.length < job.limit && job.status === 'scraping') {
    const url = queue.shift()!;
    if (disallowed.some((prefix) => new URL(url).pathname.startsWith(prefix))) continue;
    const fetched = await fetchSite(url, 5000).catch(() => undefined);
    if (!fetched) continue;
    const { response: res, finalUrl } = fetched;
    const html = await res.text();
    const type = res.headers.get('content-type') ?? '';
    if (!/html/i.test(type)) continue;
    const main = job.onlyMainContent ? (/<main\b[^>]*>([\s\S]*?)<\/main>/i.exec(html)?.[1] ?? /<body\b[^>]*>([\s\S]*?)<\/body>/i.exec(html)?.[1] ?? html) : html;
    job.documents.push({
      ...(job.formats.includes('html') ? { html: main } : {}),
      ...(job.formats.includes('markdown') ? { markdown: main.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim() } : {}),
      metadata: {
        title: decode(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? ''),
        description: decode(/<meta\s+name=["']description["']\s+content=["']([^"']*)["']/i.exec(html)?.[1] ?? ''),
        sourceURL: url,
        url: finalUrl,
        statusCode: res.status,
        contentType: type,
      },
    });
    for (const [, href] of html.matchAll(/<a\s[^>]*href=["']([^"'#]+)/gi)) {
      const next = new URL(href!, finalUrl);
      next.hash = '';
      if (next.origin === origin && !seen.has(next.href)) {
        seen.add(next.href);
        queue.push(next.href);
      }
    }
  }
}

/** The Disallow prefixes of robots.txt's "User-agent: *" group (no patterns: the emulator's fixtures need none). */
async function disallowedPaths(origin: string): Promise<string[]> {
  const fetched = await fetchSite(`${origin}/robots.txt`, 5000).catch(() => undefined);
  if (!fetched?.response.ok) return [];
  const paths: string[] = [];
  let forEveryone = false;
  for (const line of (await fetched.response.text()).split(/\r?\n/)) {
    const [field, ...rest] = line.replace(/#.*/, '').split(':');
    const value = rest.join(':').trim();
    if (/^user-agent$/i.test(field!.trim())) forEveryone = value === '*';
    else if (forEveryone && /^disallow$/i.test(field!.trim()) && value) paths.push(value);
  }
  return paths;
}

const decode = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').trim();

export const firecrawlVendor: LocalVendor = {
  create: (ctx) => firecrawlEmulator(ctx),
  // The address only: without FIRECRAWL_API_KEY the service uses its built-in crawler.
  env: (ctx) => ({ FIRECRAWL_API_BASE: `${ctx.hostUrl}/firecrawl` }),
};
