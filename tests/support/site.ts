// A small website on loopback, served by the test itself (node:http), for
// the crawler, the page measurement and the vendor emulators to fetch.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface FixtureResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Never answer (until the server closes). */
  hang?: boolean;
}
export type FixtureRoute = FixtureResponse | ((req: IncomingMessage, site: FixtureSite) => FixtureResponse);

export interface FixtureSite {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** Paths requested, in order. */
  hits: string[];
  close(): Promise<void>;
}

export const html = (body: string, headers: Record<string, string> = {}): FixtureResponse => ({
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body,
});

export async function serveSite(routes: Record<string, FixtureRoute>): Promise<FixtureSite> {
  const hits: string[] = [];
  const site = {} as FixtureSite;
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    const route = routes[path] ?? routes[path.split('?')[0]!];
    const answer = typeof route === 'function' ? route(req, site) : (route ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' });
    if (answer.hang) return;
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    res.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(site, {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return site;
}

/** Serves the routes for the file's tests; the returned object is filled in before they run. */
export function useSite(routes: Record<string, FixtureRoute>): FixtureSite {
  const handle = {} as FixtureSite;
  let site: FixtureSite | undefined;
  beforeAll(async () => {
    site = await serveSite(routes);
    Object.assign(handle, { origin: site.origin, port: site.port, hits: site.hits, close: site.close });
  });
  afterAll(async () => site?.close());
  return handle;
}
