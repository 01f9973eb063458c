// The PageSpeed Insights adapter against the PageSpeed emulator.
import { beforeEach, describe, expect, it } from 'vitest';
import { pagespeedAnalyzer } from '../../../lib/crawler/pagespeed-analyzer.ts';
import { keyFigures } from '../../../lib/crawler/site.ts';
import { PAGESPEED_API_KEY, pagespeedVendor } from '../../../local/emulators/pagespeed.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';
import { html, useSite } from '../../support/site.ts';

const emu = useEmulators(pagespeedVendor);
const site = useSite({ '/': html(`<title>Home</title><script src="/a.js"></script><p>${'text '.repeat(500)}</p>`), '/gone': { status: 404 } });
const analyzer = (apiKey = PAGESPEED_API_KEY) => pagespeedAnalyzer({ apiKey, apiBase: emu.env.PAGESPEED_API_BASE! }, quickPolicy);

interface Recorded {
  url: string;
  strategy: string;
  categories: string[];
  lighthouseResult: { categories: { performance: { score: number } }; audits: Record<string, { numericValue: number }> };
}

describe('the PageSpeed Insights analyzer', () => {
  beforeEach(() => emu.reset());

  it('runs mobile and desktop, and reports what Lighthouse answered for each', async () => {
    const analysis = await analyzer().analyse(`${site.origin}/`);
    const runs = await emu.get<Recorded[]>('pagespeed');
    expect(runs.map((r) => r.strategy).sort()).toEqual(['DESKTOP', 'MOBILE']);
    expect(runs.every((r) => r.url === `${site.origin}/` && r.categories.join() === 'PERFORMANCE')).toBe(true);
    const lab = (strategy: string) => {
      const { categories, audits } = runs.find((r) => r.strategy === strategy)!.lighthouseResult;
      return {
        performanceScore: Math.round(categories.performance.score * 100),
        lcpMs: Math.round(audits['largest-contentful-paint']!.numericValue),
        cls: audits['cumulative-layout-shift']!.numericValue,
        tbtMs: Math.round(audits['total-blocking-time']!.numericValue),
        fcpMs: Math.round(audits['first-contentful-paint']!.numericValue),
        speedIndexMs: Math.round(audits['speed-index']!.numericValue),
      };
    };
    expect(analysis).toMatchObject({ source: 'pagespeed', url: `${site.origin}/`, finalUrl: `${site.origin}/`, https: false, mobile: lab('MOBILE'), desktop: lab('DESKTOP') });
    // The same shape as our own measurement: the page facts Lighthouse does not report stay null.
    expect(analysis).toMatchObject({ status: null, ttfbMs: null, bytes: null, scripts: null, title: null });
    expect(analysis.mobile!.lcpMs!).toBeGreaterThan(analysis.desktop!.lcpMs!);
    expect(keyFigures(analysis)).toEqual({
      source: 'pagespeed',
      performanceScore: analysis.mobile!.performanceScore,
      desktopPerformanceScore: analysis.desktop!.performanceScore,
      lcpMs: analysis.mobile!.lcpMs,
      cls: analysis.mobile!.cls,
      tbtMs: analysis.mobile!.tbtMs,
      fcpMs: analysis.mobile!.fcpMs,
    });
  });

  it('retries a throttle (Google sends no Retry-After) and a 500', async () => {
    await emu.fault({ vendor: 'pagespeed', mode: 'throttle', count: 1, match: 'MOBILE' });
    await emu.fault({ vendor: 'pagespeed', mode: 'fail', count: 1, match: 'DESKTOP' });
    const analysis = await analyzer().analyse(`${site.origin}/`);
    expect(analysis.mobile!.performanceScore).toEqual(expect.any(Number));
    expect(analysis.desktop!.performanceScore).toEqual(expect.any(Number));
  });

  it("reports Lighthouse's refusal of a page it cannot load as a lasting failure", async () => {
    const error = await analyzer().analyse(`${site.origin}/gone`).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected', vendor: 'pagespeed', context: { status: 400, vendorCode: 'lighthouseUserError' } });
  });

  it('is refused with a wrong key', async () => {
    const error = await analyzer('wrong').analyse(`${site.origin}/`).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected', context: { status: 400, vendorCode: 'badRequest' } });
    expect(error.message).not.toContain('wrong');
  });

  it('gives up after a lasting 429, as a transient failure for the state machine to retry', async () => {
    await emu.fault({ vendor: 'pagespeed', mode: 'throttle', count: 10 });
    const error = await analyzer().analyse(`${site.origin}/`).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorThrottled', context: { status: 429, vendorCode: 'rateLimitExceeded' } });
  });
});
