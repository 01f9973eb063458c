// PageSpeed Insights v5 (vendor-contracts §9): one Lighthouse run per form
// factor, mobile and desktop in parallel. A run routinely takes tens of
// seconds, so each attempt may take at least a minute. Google sends no
// Retry-After on 429, so throttles back off on our own schedule.
import { vendorHttp } from '../integrations/http-client.ts';
import type { RetryPolicy } from '../integrations/retry.ts';
import type { LabMetrics, SiteAnalysis, SiteAnalyzer } from './site.ts';

interface Settings {
  apiKey: string;
  apiBase: string;
}

interface Audit {
  numericValue?: number;
}
interface PagespeedResult {
  lighthouseResult?: {
    finalUrl?: string;
    finalDisplayedUrl?: string;
    categories?: { performance?: { score?: number | null } };
    audits?: Record<string, Audit | undefined>;
  };
}

export const PAGESPEED_MIN_TIMEOUT_MS = 60_000;

export function pagespeedAnalyzer(settings: Settings, policy: RetryPolicy & { timeoutMs: number }, now: () => Date = () => new Date()): SiteAnalyzer {
  const http = vendorHttp({
    vendor: 'pagespeed',
    baseUrl: `${settings.apiBase}/pagespeedonline/v5`,
    headers: () => ({}),
    // Two attempts at most: each can last a minute, and the state machine retries too.
    policy: { ...policy, timeoutMs: Math.max(policy.timeoutMs, PAGESPEED_MIN_TIMEOUT_MS), maxAttempts: Math.min(policy.maxAttempts, 2) },
    errorCode: (body) => {
      const error = (body as { error?: { status?: string; errors?: { reason?: string }[] } } | undefined)?.error;
      return error?.errors?.[0]?.reason ?? error?.status;
    },
  });

  const run = async (url: string, strategy: 'MOBILE' | 'DESKTOP') => {
    const query = new URLSearchParams({ url, key: settings.apiKey, strategy, category: 'PERFORMANCE' });
    const res = await http<PagespeedResult>(`analyse the page (${strategy.toLowerCase()})`, { path: `/runPagespeed?${query}` });
    return res.body.lighthouseResult;
  };

  return {
    async analyse(url) {
      const [mobile, desktop] = await Promise.all([run(url, 'MOBILE'), run(url, 'DESKTOP')]);
      const finalUrl = mobile?.finalDisplayedUrl ?? mobile?.finalUrl ?? url;
      const analysis: SiteAnalysis = {
        source: 'pagespeed',
        url,
        finalUrl,
        analysedAt: now().toISOString(),
        https: new URL(finalUrl).protocol === 'https:',
        status: null,
        ttfbMs: null,
        totalMs: null,
        bytes: null,
        scripts: null,
        stylesheets: null,
        images: null,
        title: null,
        description: null,
        mobile: labMetrics(mobile),
        desktop: labMetrics(desktop),
      };
      return analysis;
    },
  };
}

function labMetrics(result: PagespeedResult['lighthouseResult']): LabMetrics {
  const value = (id: string) => {
    const v = result?.audits?.[id]?.numericValue;
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  };
  const ms = (id: string) => {
    const v = value(id);
    return v === null ? null : Math.round(v);
  };
  const score = result?.categories?.performance?.score;
  return {
    performanceScore: typeof score === 'number' ? Math.round(score * 100) : null,
    lcpMs: ms('largest-contentful-paint'),
    cls: round3(value('cumulative-layout-shift')),
    tbtMs: ms('total-blocking-time'),
    fcpMs: ms('first-contentful-paint'),
    speedIndexMs: ms('speed-index'),
  };
}

const round3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
