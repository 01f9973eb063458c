// How the crawling emulators (Firecrawl, PageSpeed) fetch a client's site:
// plain fetch, except that names under .localhost are loopback (RFC 6761, as
// browsers and our own fetcher treat them), so a fixture site served on
// 127.0.0.1 can be given to them under a name of its own.
export async function fetchSite(url: string, timeoutMs: number): Promise<{ response: Response; finalUrl: string }> {
  const asked = new URL(url);
  const loopback = asked.hostname === 'localhost' || asked.hostname.endsWith('.localhost');
  const target = new URL(url);
  if (loopback) target.hostname = '127.0.0.1';
  const response = await fetch(target, { redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  const final = new URL(response.url);
  if (loopback && final.origin === target.origin) final.host = asked.host;
  return { response, finalUrl: final.href };
}
