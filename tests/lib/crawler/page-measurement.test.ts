import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { measurementAnalyzer } from '../../../lib/crawler/page-measurement.ts';
import { siteFetcher } from '../../../lib/crawler/site-fetcher.ts';
import { keyFigures } from '../../../lib/crawler/site.ts';
import { useSite } from '../../support/site.ts';
import { stubNetwork } from '../../support/stub-resolver.ts';

const page = `<!doctype html><html><head><title>Acme — Home</title><meta name="description" content="The home of Acme">
<link rel="stylesheet" href="/a.css"><link rel="stylesheet" href="/b.css"><script src="/app.js"></script><script>1</script></head>
<body><img src="/1.png"><img src="/2.png"><img src="/3.png"><p>Hello</p></body></html>`;
const site = useSite({
  '/': { headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' }, body: gzipSync(page) },
  '/moved': { status: 301, headers: { location: '/' } },
  '/broken': { status: 503, headers: { 'content-type': 'text/html' }, body: '<title>Down for maintenance</title>' },
  '/file': { headers: { 'content-type': 'application/pdf' }, body: '%PDF' },
});
const at = new Date('2026-03-01T10:00:00Z');
const analyzer = measurementAnalyzer(siteFetcher({ allowPrivateNetworks: true, timeoutMs: 2000, maxBytes: 1_000_000, maxRedirects: 5, userAgent: 't' }, stubNetwork()), () => at);

describe('measuring a page ourselves', () => {
  it('reports status, timings, transferred bytes, what the page loads, and what it says about itself', async () => {
    const analysis = await analyzer.analyse(`${site.origin}/moved`);
    expect(analysis).toEqual({
      source: 'measurement',
      url: `${site.origin}/moved`,
      finalUrl: `${site.origin}/`,
      analysedAt: '2026-03-01T10:00:00.000Z',
      https: false,
      status: 200,
      ttfbMs: expect.any(Number),
      totalMs: expect.any(Number),
      bytes: gzipSync(page).length,
      scripts: 2,
      stylesheets: 2,
      images: 3,
      title: 'Acme — Home',
      description: 'The home of Acme',
      mobile: null,
      desktop: null,
    });
    expect(analysis.totalMs!).toBeGreaterThanOrEqual(analysis.ttfbMs!);
  });

  it('measures an error page as it is, rather than failing', async () => {
    expect(await analyzer.analyse(`${site.origin}/broken`)).toMatchObject({ status: 503, title: 'Down for maintenance' });
  });

  it('leaves the page facts of something that is not HTML empty', async () => {
    expect(await analyzer.analyse(`${site.origin}/file`)).toMatchObject({ status: 200, bytes: 4, scripts: null, stylesheets: null, images: null, title: null });
  });

  it('has key figures for outcomes and summaries', async () => {
    const figures = keyFigures(await analyzer.analyse(`${site.origin}/`));
    expect(figures).toEqual({ source: 'measurement', status: 200, ttfbMs: expect.any(Number), totalMs: expect.any(Number), bytes: gzipSync(page).length, https: false, title: 'Acme — Home' });
  });

  it('fails, with the reason, for a site it cannot reach, cannot resolve or may not fetch', async () => {
    await expect(analyzer.analyse('http://127.0.0.1:9/')).rejects.toMatchObject({ name: 'SiteUnavailable', code: 'unreachable' });
    await expect(analyzer.analyse('http://no-such-host.invalid/')).rejects.toMatchObject({ name: 'SiteRefused', code: 'unresolvable' });
    const deployed = measurementAnalyzer(siteFetcher({ allowPrivateNetworks: false, timeoutMs: 2000, maxBytes: 1_000_000, maxRedirects: 5, userAgent: 't' }, stubNetwork()));
    await expect(deployed.analyse('http://169.254.169.254/latest/meta-data/')).rejects.toMatchObject({ name: 'SiteRefused', code: 'blocked_address' });
  });
});
