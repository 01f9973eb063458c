// Reference pages of the dashboard and the client portal, served by the local
// stack at DASHBOARD_URL and PORTAL_URL so that every link and redirect the
// service builds lands on a page that says what happened. They are built on
// the API only, through the typed client (lib/api-client), and kept plain: a
// reference for a front-end developer, not a product. The script is bundled
// with esbuild on its first request. Local only: nothing here is deployed.
import { serve, type ServerType } from '@hono/node-server';
import { build } from 'esbuild';
import { Hono } from 'hono';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { PagesConfig } from './config.ts';

export type Site = PagesConfig['site'];

export interface PagesServer {
  url: string;
  stop(): Promise<void>;
}

/** The paths each site answers with a page; anything else is a 404 (a slug is lower-case words joined by hyphens). */
const ROUTES: Record<Site, RegExp[]> = {
  dashboard: [/^\/$/, /^\/dashboard$/, /^\/signup$/, /^\/login$/],
  portal: [/^\/$/, /^\/login$/, /^\/verify$/, /^\/forgot-password$/, /^\/reset-password$/, /^\/onboarding$/, /^\/invitations\/[A-Za-z0-9-]+$/, /^\/[a-z0-9]+(?:-[a-z0-9]+)*$/],
};

const TITLES: Record<Site, string> = { dashboard: 'Dashboard', portal: 'Client portal' };

let script: Promise<string> | undefined;

/** The pages' script: app/main.ts with the API client, as one ES module for the browser. */
export function pagesScript(): Promise<string> {
  script ??= build({
    entryPoints: [fileURLToPath(new URL('./app/main.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    sourcemap: 'inline',
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);
  script.catch(() => (script = undefined)); // a failed build is tried again on the next request
  return script;
}

export async function serveReferencePages(options: { site: Site; port: number; config: Omit<PagesConfig, 'site'> }): Promise<PagesServer> {
  const { site } = options;
  const config: PagesConfig = { site, ...options.config };
  const styles = readFileSync(new URL('./app/style.css', import.meta.url), 'utf8');
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    // The script, styles and API are all a page loads; no page of another origin may frame these.
    c.header('content-security-policy', `default-src 'self'; connect-src 'self' ${config.apiUrl}; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`);
    // /verify carries its token in the query: links followed from it must not send it on.
    c.header('referrer-policy', 'no-referrer');
    c.header('cache-control', 'no-store');
  });
  app.get('/app.js', async (c) => c.body(await pagesScript(), 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/style.css', (c) => c.body(styles, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('*', (c) => c.html(shell(config), ROUTES[site].some((r) => r.test(c.req.path)) ? 200 : 404));
  app.all('*', (c) => c.text('Method not allowed', 405, { allow: 'GET' }));

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', (error: NodeJS.ErrnoException) => {
      const setting = site === 'dashboard' ? 'DASHBOARD_URL' : 'PORTAL_URL';
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`port ${options.port} (the ${site}'s reference pages) is taken (EADDRINUSE): if your own ${site} runs there, start with ${setting}=http://localhost:${options.port}`)
          : error,
      );
    });
  });
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Every page is this shell; the script fills <main> from the path. */
function shell(config: PagesConfig): string {
  // Inside <script>, only "</script" could end the element: escaping "<" keeps the JSON inert.
  const json = JSON.stringify(config).replaceAll('<', '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLES[config.site]}</title>
<link rel="stylesheet" href="/style.css">
<script id="config" type="application/json">${json}</script>
<script type="module" src="/app.js"></script>
</head>
<body>
<header><strong>${TITLES[config.site]}</strong> <span>reference pages of the local stack</span></header>
<main><p>Loading…</p></main>
<footer>Built on the API only, with the typed client <code>@onboarding-automation/api-client</code>: see docs/api.md.</footer>
</body>
</html>
`;
}
