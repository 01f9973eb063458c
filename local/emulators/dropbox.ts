// Dropbox API v2 as our storage adapter calls it (vendor-contracts §2): the
// RPC host (JSON bodies) under /dropbox/api, the content host (Dropbox-API-Arg
// header + bytes) under /dropbox/content, the refresh-token flow, tagged-union
// errors on 409, and 429s with Retry-After. Folder batches of ten or more
// complete asynchronously, as large batches do on the real service.
import { Hono, type Context } from 'hono';
import { randomBytes } from 'node:crypto';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const DROPBOX_APP_KEY = 'local-app-key';
export const DROPBOX_APP_SECRET = 'local-app-secret';
export const DROPBOX_REFRESH_TOKEN = 'local-refresh-token';
const TOKEN_TTL_SECONDS = 14400;

interface Entry {
  tag: 'folder' | 'file';
  id: string;
  name: string;
  path_display: string;
  path_lower: string;
  content?: string;
  size?: number;
  rev?: string;
  server_modified?: string;
}
interface Link {
  url: string;
  path_lower: string;
  id: string;
  name: string;
  tag: 'folder' | 'file';
}
interface State {
  entries: Record<string, Entry>;
  links: Record<string, Link>;
  tokens: Record<string, number>;
  jobs: Record<string, { checks: number; result: unknown }>;
}
const empty = (): State => ({ entries: {}, links: {}, tokens: {}, jobs: {} });

const metadata = (e: Entry) =>
  e.tag === 'folder'
    ? { '.tag': 'folder', name: e.name, id: e.id, path_lower: e.path_lower, path_display: e.path_display }
    : {
        '.tag': 'file',
        name: e.name,
        id: e.id,
        path_lower: e.path_lower,
        path_display: e.path_display,
        size: e.size,
        rev: e.rev,
        server_modified: e.server_modified,
        content_hash: 'local',
      };

const conflict = (c: Context, route: string, tag: string, inner: object) =>
  c.json({ error_summary: `${route}/${tag}/..`, error: { '.tag': route, [route]: inner } }, 409);
const pathError = (c: Context, kind: 'conflict' | 'not_found' | 'malformed_path', conflictTag?: 'folder' | 'file') =>
  c.json(
    {
      error_summary: `path/${kind}${conflictTag ? `/${conflictTag}` : ''}/..`,
      error: { '.tag': 'path', path: conflictTag ? { '.tag': kind, [kind]: { '.tag': conflictTag } } : { '.tag': kind } },
    },
    409,
  );

const PATH = /^(\/[^/\\<>:"|?*\u0000-\u001f]+)+$/;
const parentOf = (p: string) => p.slice(0, p.lastIndexOf('/')) || '/';

export function dropboxEmulator(): VendorEmulator {
  let state = empty();
  const app = new Hono().basePath('/dropbox');

  const authorised = (c: Context) => {
    const token = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    const expires = token ? state.tokens[token] : undefined;
    return expires !== undefined && expires > Date.now();
  };
  const unauthorised = (c: Context) =>
    c.json({ error_summary: 'expired_access_token/..', error: { '.tag': 'expired_access_token' } }, 401);

  /** Creates a folder and its missing parents, as create_folder_v2 does. */
  const mkdir = (path: string): Entry => {
    const lower = path.toLowerCase();
    const parent = parentOf(path);
    if (parent !== '/' && !state.entries[parent.toLowerCase()]) mkdir(parent);
    const entry: Entry = {
      tag: 'folder',
      id: `id:${randomBytes(8).toString('base64url')}`,
      name: path.slice(path.lastIndexOf('/') + 1),
      path_display: path,
      path_lower: lower,
    };
    state.entries[lower] = entry;
    return entry;
  };

  const createFolder = (path: string): { ok: Entry } | { conflict: 'folder' | 'file' } | { malformed: true } => {
    if (!PATH.test(path)) return { malformed: true };
    const existing = state.entries[path.toLowerCase()];
    if (existing) return { conflict: existing.tag };
    return { ok: mkdir(path) };
  };

  // OAuth: a refresh token for a short-lived access token (form body, query, or Basic client auth).
  app.post('/api/oauth2/token', async (c) => {
    const form = Object.fromEntries(new URLSearchParams(await c.req.text()));
    const params = { ...c.req.query(), ...form };
    const basic = /^Basic (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
    const clientId = params.client_id ?? basicId;
    const clientSecret = params.client_secret ?? basicSecret;
    if (params.grant_type !== 'refresh_token') return c.json({ error: 'unsupported_grant_type' }, 400);
    if (clientId !== DROPBOX_APP_KEY || clientSecret !== DROPBOX_APP_SECRET) return c.json({ error: 'invalid_client' }, 400);
    if (params.refresh_token !== DROPBOX_REFRESH_TOKEN) return c.json({ error: 'invalid_grant', error_description: 'refresh token is invalid' }, 400);
    const token = `sl.local.${randomBytes(16).toString('base64url')}`;
    state.tokens[token] = Date.now() + TOKEN_TTL_SECONDS * 1000;
    return c.json({ access_token: token, token_type: 'bearer', expires_in: TOKEN_TTL_SECONDS });
  });

  app.use('/api/2/*', async (c, next) => (authorised(c) ? next() : unauthorised(c)));
  app.use('/content/2/*', async (c, next) => (authorised(c) ? next() : unauthorised(c)));

  app.post('/api/2/files/create_folder_v2', async (c) => {
    const { path } = (await c.req.json().catch(() => ({}))) as { path?: string };
    const result = createFolder(path ?? '');
    if ('malformed' in result) return pathError(c, 'malformed_path');
    if ('conflict' in result) return pathError(c, 'conflict', result.conflict);
    return c.json({ metadata: metadata(result.ok) });
  });

  app.post('/api/2/files/create_folder_batch', async (c) => {
    const { paths, force_async } = (await c.req.json().catch(() => ({}))) as { paths?: string[]; force_async?: boolean };
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > 10000) return c.text('Error in call to API function: invalid paths', 400);
    const entries = paths.map((p) => {
      const r = createFolder(p);
      if ('ok' in r) return { '.tag': 'success', metadata: metadata(r.ok) };
      const path = 'malformed' in r ? { '.tag': 'malformed_path' } : { '.tag': 'conflict', conflict: { '.tag': r.conflict } };
      return { '.tag': 'failure', failure: { '.tag': 'path', path } };
    });
    if (force_async || paths.length >= 10) {
      const id = `dbjid:${randomBytes(12).toString('base64url')}`;
      state.jobs[id] = { checks: 0, result: { '.tag': 'complete', entries } };
      return c.json({ '.tag': 'async_job_id', async_job_id: id });
    }
    return c.json({ '.tag': 'complete', entries });
  });

  app.post('/api/2/files/create_folder_batch/check', async (c) => {
    const { async_job_id } = (await c.req.json().catch(() => ({}))) as { async_job_id?: string };
    const job = async_job_id ? state.jobs[async_job_id] : undefined;
    if (!job) return conflict(c, 'invalid_async_job_id', 'invalid_async_job_id', {});
    job.checks += 1;
    return c.json(job.checks === 1 ? { '.tag': 'in_progress' } : job.result);
  });

  app.post('/api/2/files/get_metadata', async (c) => {
    const { path } = (await c.req.json().catch(() => ({}))) as { path?: string };
    const entry = path ? state.entries[path.toLowerCase()] : undefined;
    return entry ? c.json(metadata(entry)) : pathError(c, 'not_found');
  });

  app.post('/api/2/files/list_folder', async (c) => {
    const { path } = (await c.req.json().catch(() => ({}))) as { path?: string };
    const lower = (path ?? '').toLowerCase();
    if (lower !== '' && !state.entries[lower]) return pathError(c, 'not_found');
    const children = Object.values(state.entries).filter((e) => parentOf(e.path_lower) === (lower || '/'));
    return c.json({ entries: children.map(metadata), cursor: 'local', has_more: false });
  });

  app.post('/api/2/sharing/create_shared_link_with_settings', async (c) => {
    const { path, settings } = (await c.req.json().catch(() => ({}))) as { path?: string; settings?: object };
    const entry = path ? state.entries[path.toLowerCase()] : undefined;
    if (!entry) return conflict(c, 'path', 'not_found', { '.tag': 'not_found' });
    const existing = state.links[entry.path_lower];
    if (existing) {
      // The real service includes the link only when the requested settings match the existing ones.
      const inner = settings ? { '.tag': 'metadata' } : { '.tag': 'metadata', metadata: linkView(existing) };
      return c.json({ error_summary: 'shared_link_already_exists/..', error: { '.tag': 'shared_link_already_exists', shared_link_already_exists: inner } }, 409);
    }
    const id = randomBytes(9).toString('base64url');
    const link: Link = {
      url: `https://www.dropbox.com/scl/fo/${id}/${encodeURIComponent(entry.name)}?rlkey=${randomBytes(6).toString('hex')}&dl=0`,
      path_lower: entry.path_lower,
      id: entry.id,
      name: entry.name,
      tag: entry.tag,
    };
    state.links[entry.path_lower] = link;
    return c.json(linkView(link));
  });

  app.post('/api/2/sharing/list_shared_links', async (c) => {
    const { path } = (await c.req.json().catch(() => ({}))) as { path?: string };
    const links = Object.values(state.links).filter((l) => !path || l.path_lower === path.toLowerCase());
    return c.json({ links: links.map(linkView), has_more: false });
  });

  app.post('/content/2/files/upload', async (c) => {
    let arg: { path?: string; mode?: string | { '.tag': string }; autorename?: boolean };
    try {
      arg = JSON.parse(c.req.header('dropbox-api-arg') ?? '');
    } catch {
      return c.text('Error in call to API function "files/upload": Bad HTTP "Dropbox-API-Arg" header', 400);
    }
    const path = arg.path ?? '';
    if (!PATH.test(path)) return pathError(c, 'malformed_path');
    const bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length > 150 * 1024 * 1024) return c.json({ error_summary: 'payload_too_large/..', error: { '.tag': 'payload_too_large' } }, 409);
    const mode = typeof arg.mode === 'string' ? arg.mode : (arg.mode?.['.tag'] ?? 'add');
    const lower = path.toLowerCase();
    const existing = state.entries[lower];
    if (existing && (existing.tag === 'folder' || mode === 'add')) {
      return c.json(
        { error_summary: 'path/conflict/file/..', error: { '.tag': 'path', reason: { '.tag': 'conflict', conflict: { '.tag': existing.tag } } } },
        409,
      );
    }
    const parent = parentOf(path);
    if (parent !== '/' && !state.entries[parent.toLowerCase()]) mkdir(parent);
    const entry: Entry = {
      tag: 'file',
      id: existing?.id ?? `id:${randomBytes(8).toString('base64url')}`,
      name: path.slice(path.lastIndexOf('/') + 1),
      path_display: path,
      path_lower: lower,
      content: bytes.toString('utf8'),
      size: bytes.length,
      rev: randomBytes(8).toString('hex'),
      server_modified: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    state.entries[lower] = entry;
    return c.json(metadata(entry));
  });

  return {
    vendor: 'dropbox',
    prefixes: ['/dropbox'],
    app,
    records: {
      storage: () =>
        Object.values(state.entries)
          .sort((a, b) => a.path_lower.localeCompare(b.path_lower))
          .map((e) => ({
            path: e.path_display,
            type: e.tag,
            ...(e.tag === 'file' ? { size: e.size, content: e.content } : {}),
            sharedLink: state.links[e.path_lower]?.url,
          })),
    },
    failure: (c) => c.text('Internal Server Error', 500),
    throttle: (c, seconds) =>
      c.json(
        { error_summary: 'too_many_requests/..', error: { reason: { '.tag': 'too_many_requests' }, retry_after: seconds } },
        429,
        { 'retry-after': String(seconds) },
      ),
    reset: () => {
      const tokens = state.tokens; // issued tokens stay valid, as on the real service
      state = { ...empty(), tokens };
    },
    dump: () => state,
    load: (saved) => (state = saved as State),
  };
}

function linkView(l: Link) {
  return {
    '.tag': l.tag,
    url: l.url,
    name: l.name,
    id: l.id,
    path_lower: l.path_lower,
    link_permissions: { can_revoke: true, resolved_visibility: { '.tag': 'public' } },
  };
}

export const dropboxVendor: LocalVendor = {
  create: () => dropboxEmulator(),
  env: (ctx) => ({
    DROPBOX_REFRESH_TOKEN,
    DROPBOX_APP_KEY,
    DROPBOX_APP_SECRET,
    DROPBOX_API_BASE: `${ctx.hostUrl}/dropbox/api`,
    DROPBOX_CONTENT_BASE: `${ctx.hostUrl}/dropbox/content`,
    DROPBOX_ROOT_PATH: '/Clients',
  }),
};
