// PageSpeed Insights v5 as our analyzer adapter calls it (vendor-contracts
// §9), under /pagespeed: GET /pagespeedonline/v5/runPagespeed?url&key&strategy&category.
// It really requests the page (a page that cannot be loaded gets Lighthouse's
// 400 FAILED_DOCUMENT_REQUEST), then answers a Lighthouse result whose lab
// figures are derived from the page's size and scripts: deterministic, mobile
// slower than desktop, and recorded at /_local/pagespeed so tests can compare
// what the adapter reports with what was answered. Errors are Google's
// {error:{code, message, errors:[{domain, reason}]}}; a throttle is a 429
// without Retry-After. The local stack points the service here but leaves
// the key unset, so our own measurement runs unless PAGESPEED_API_KEY is set.
import { Hono, type Context } from 'hono';
import { declaredOnly } from './declared.ts';
import { fetchSite } from './fetch-site.ts';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const PAGESPEED_API_KEY = 'local-pagespeed-key';

interface Run {
  url: string;
  strategy: 'MOBILE' | 'DESKTOP';
  categories: string[];
  at: string;
  lighthouseResult: Record<string, unknown>;
}

export const PAGESPEED_DIFFERENCES = [
  'Lab figures are derived from the page size and script count, not measured by Lighthouse; no field data (loadingExperience is empty).',
  'An unknown route is a JSON 404; Google answers those with an HTML page.',
];

const googleError = (c: Context, code: 400 | 404 | 429 | 500, message: string, reason: string, domain = 'global', status?: string) =>
  c.json({ error: { code, message, errors: [{ message, domain, reason }], ...(status ? { status } : {}) } }, code);

export function pagespeedEmulator(): VendorEmulator {
  let runs: Run[] = [];
  const app = new Hono().basePath('/pagespeed');
  app.use(
    '*',
    declaredOnly({
      base: '/pagespeed',
      operations: [
        {
          method: 'GET',
          path: '/pagespeedonline/v5/runPagespeed',
          // runPagespeed's own parameters and Google's standard ones, as pagespeed.json lists them.
          query: [
            'captchaToken', 'category', 'locale', 'strategy', 'url', 'utm_campaign', 'utm_source', '$.xgafv', 'access_token', 'alt', 'callback',
            'fields', 'key', 'oauth_token', 'prettyPrint', 'quotaUser', 'uploadType', 'upload_protocol',
          ],
        },
      ],
      refuse: (c, undeclared) =>
        undeclared.kind === 'query'
          ? googleError(
              c,
              400,
              `Invalid JSON payload received. Unknown name "${undeclared.name}": Cannot bind query parameter. Field '${undeclared.name}' could not be found in request message.`,
              'badRequest',
              'global',
              'INVALID_ARGUMENT',
            )
          : googleError(c, 404, 'Method not found.', 'notFound', 'global', 'NOT_FOUND'),
    }),
  );

  app.get('/pagespeedonline/v5/runPagespeed', async (c) => {
    if (c.req.query('key') !== PAGESPEED_API_KEY) {
      return googleError(c, 400, 'API key not valid. Please pass a valid API key.', 'badRequest', 'global', 'INVALID_ARGUMENT');
    }
    const url = c.req.query('url') ?? '';
    if (!/^https?:\/\/\S+$/i.test(url)) return googleError(c, 400, `Invalid value at 'url' (TYPE_STRING), "${url}"`, 'badRequest', 'global', 'INVALID_ARGUMENT');
    const strategy = (c.req.query('strategy') ?? 'DESKTOP').toUpperCase();
    if (strategy !== 'MOBILE' && strategy !== 'DESKTOP') {
      return googleError(c, 400, `Invalid value at 'strategy' (type.googleapis.com/google.chrome.lighthouse.v1.Strategy), "${strategy}"`, 'badRequest', 'global', 'INVALID_ARGUMENT');
    }
    const categories = c.req.queries('category') ?? ['PERFORMANCE'];

    const started = performance.now();
    const fetched = await fetchSite(url, 10_000).catch((e: Error) => e);
    if (fetched instanceof Error || fetched.response.status >= 400) {
      const detail = fetched instanceof Error ? 'net::ERR_CONNECTION_REFUSED' : `Status code: ${fetched.response.status}`;
      return googleError(
        c,
        400,
        `Lighthouse returned error: FAILED_DOCUMENT_REQUEST. Lighthouse was unable to reliably load the page you requested. Make sure you are testing the correct URL and that the server is properly responding to all requests. (Details: ${detail})`,
        'lighthouseUserError',
        'lighthouse',
      );
    }
    const { response: res, finalUrl } = fetched;
    const html = await res.text();
    const serverMs = performance.now() - started;
    const bytes = Buffer.byteLength(html);
    const scripts = (html.match(/<script\b/gi) ?? []).length;
    const images = (html.match(/<img\b/gi) ?? []).length;

    // Lab figures from what the page weighs: a heavier page, and a phone, are slower.
    const slow = strategy === 'MOBILE' ? 3 : 1;
    const fcp = Math.round((400 + bytes / 40) * slow);
    const lcp = fcp + 250 * slow;
    const tbt = scripts * 30 * slow;
    const cls = Math.round(0.02 * (images % 5) * 1000) / 1000;
    const speedIndex = fcp + 150 * slow;
    const score = Math.max(0, Math.min(1, Math.round((1 - (lcp - 1200) / 10_000 - tbt / 3000 - cls) * 100) / 100));
    const audit = (id: string, title: string, numericValue: number, unit: 'millisecond' | 'unitless') => ({
      id,
      title,
      score: Math.max(0, Math.min(1, Math.round((1 - numericValue / (unit === 'unitless' ? 0.5 : 8000)) * 100) / 100)),
      numericValue,
      numericUnit: unit,
      displayValue: unit === 'unitless' ? String(numericValue) : `${(numericValue / 1000).toFixed(1)} s`,
    });
    const lighthouseResult = {
      requestedUrl: url,
      finalUrl,
      finalDisplayedUrl: finalUrl,
      lighthouseVersion: '12.8.1',
      fetchTime: new Date().toISOString(),
      configSettings: { formFactor: strategy.toLowerCase(), locale: 'en-US', onlyCategories: categories.map((x) => x.toLowerCase()) },
      categories: { performance: { id: 'performance', title: 'Performance', score } },
      audits: {
        'first-contentful-paint': audit('first-contentful-paint', 'First Contentful Paint', fcp, 'millisecond'),
        'largest-contentful-paint': audit('largest-contentful-paint', 'Largest Contentful Paint', lcp, 'millisecond'),
        'total-blocking-time': audit('total-blocking-time', 'Total Blocking Time', tbt, 'millisecond'),
        'cumulative-layout-shift': audit('cumulative-layout-shift', 'Cumulative Layout Shift', cls, 'unitless'),
        'speed-index': audit('speed-index', 'Speed Index', speedIndex, 'millisecond'),
        'server-response-time': audit('server-response-time', 'Initial server response time', Math.round(serverMs), 'millisecond'),
      },
    };
    runs.push({ url, strategy, categories, at: new Date().toISOString(), lighthouseResult });
    return c.json({
      captchaResult: 'CAPTCHA_NOT_NEEDED',
      kind: 'pagespeedonline#result',
      id: finalUrl,
      loadingExperience: { initial_url: url },
      lighthouseResult,
      analysisUTCTimestamp: new Date().toISOString(),
    });
  });

  return {
    vendor: 'pagespeed',
    prefixes: ['/pagespeed'],
    app,
    records: { pagespeed: () => [...runs].reverse() },
    failure: (c) =>
      googleError(c, 500, 'Lighthouse returned error: ERRORED_DOCUMENT_REQUEST. Lighthouse was unable to reliably load the page you requested.', 'lighthouseError', 'lighthouse'),
    throttle: (c) =>
      googleError(c, 429, "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'pagespeedonline.googleapis.com'.", 'rateLimitExceeded', 'global', 'RESOURCE_EXHAUSTED'),
    reset: () => (runs = []),
    differences: PAGESPEED_DIFFERENCES,
    dump: () => runs,
    load: (saved) => (runs = saved as Run[]),
  };
}

export const pagespeedVendor: LocalVendor = {
  create: () => pagespeedEmulator(),
  // The address only: without PAGESPEED_API_KEY the service measures pages itself.
  env: (ctx) => ({ PAGESPEED_API_BASE: `${ctx.hostUrl}/pagespeed` }),
};
