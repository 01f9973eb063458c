import { describe, expect, it } from 'vitest';
import { fetchRobots, robotsRules } from '../../../lib/crawler/robots.ts';
import { siteFetcher } from '../../../lib/crawler/site-fetcher.ts';
import { useSite } from '../../support/site.ts';
import { stubNetwork } from '../../support/stub-resolver.ts';

const ROBOTS = 'http://acme.example/robots.txt';
const rules = (body: string) => robotsRules(ROBOTS, { status: 200, body });

describe('robots.txt rules', () => {
  it('applies the group for everyone when none names our crawler', () => {
    const r = rules('User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\n');
    expect(r.isAllowed('http://acme.example/')).toBe(true);
    expect(r.isAllowed('http://acme.example/private/plans')).toBe(false);
    expect(r.isAllowed('http://acme.example/menu.pdf')).toBe(false);
    expect(r.isAllowed('http://acme.example/menu.pdf?download=1')).toBe(true);
  });

  it('applies only the group that names our crawler when there is one', () => {
    const r = rules('User-agent: *\nDisallow: /\n\nUser-agent: AgencyCrawler\nDisallow: /drafts/\n');
    expect(r.isAllowed('http://acme.example/about')).toBe(true);
    expect(r.isAllowed('http://acme.example/drafts/x')).toBe(false);
  });

  it('lets the longest matching rule win, and Allow win a tie', () => {
    const r = rules('User-agent: *\nDisallow: /shop/\nAllow: /shop/public/\nAllow: /page\nDisallow: /page\n');
    expect(r.isAllowed('http://acme.example/shop/cart')).toBe(false);
    expect(r.isAllowed('http://acme.example/shop/public/list')).toBe(true);
    expect(r.isAllowed('http://acme.example/page')).toBe(true);
  });

  it('never allows another origin under these rules', () => {
    expect(rules('User-agent: *\nAllow: /\n').isAllowed('http://other.example/')).toBe(false);
  });

  it('allows everything when there is no robots.txt (4xx), and nothing, saying why, while it answers 5xx', () => {
    expect(robotsRules(ROBOTS, { status: 404, body: 'not found' }).serverError).toBeUndefined();
    expect(robotsRules(ROBOTS, { status: 404, body: 'not found' }).isAllowed('http://acme.example/x')).toBe(true);
    const down = robotsRules(ROBOTS, { status: 503, body: '' });
    expect(down.isAllowed('http://acme.example/x')).toBe(false);
    expect(down.serverError).toBe(503);
  });
});

describe('fetching robots.txt', () => {
  const site = useSite({ '/robots.txt': { status: 301, headers: { location: '/real-robots.txt' } }, '/real-robots.txt': { body: 'User-agent: *\nDisallow: /secret\n' } });
  const loops = useSite({ '/robots.txt': { status: 302, headers: { location: '/robots.txt' } } });
  const fetcher = siteFetcher({ allowPrivateNetworks: true, timeoutMs: 2000, maxBytes: 100_000, maxRedirects: 5, userAgent: 'test' }, stubNetwork());

  it('follows its redirects and reads the rules', async () => {
    const r = await fetchRobots(fetcher, site.origin);
    expect(r.isAllowed(`${site.origin}/`)).toBe(true);
    expect(r.isAllowed(`${site.origin}/secret`)).toBe(false);
  });

  it("passes on the fetcher's error for a site it cannot reach: that is not a robots.txt forbidding everything", async () => {
    await expect(fetchRobots(fetcher, 'http://127.0.0.1:9')).rejects.toMatchObject({ name: 'SiteUnavailable', code: 'unreachable' });
    await expect(fetchRobots(fetcher, 'http://no-such-host.invalid')).rejects.toMatchObject({ name: 'SiteRefused', code: 'unresolvable' });
    const deployed = siteFetcher({ allowPrivateNetworks: false, timeoutMs: 2000, maxBytes: 100_000, maxRedirects: 5, userAgent: 'test' }, stubNetwork());
    await expect(fetchRobots(deployed, 'http://169.254.169.254')).rejects.toMatchObject({ name: 'SiteRefused', code: 'blocked_address' });
  });

  it('takes a robots.txt lost in more than five redirects for a missing one (RFC 9309 2.3.1.2)', async () => {
    const r = await fetchRobots(fetcher, loops.origin);
    expect(r.isAllowed(`${loops.origin}/anything`)).toBe(true);
  });
});
