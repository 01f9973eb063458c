// Dropbox API v2 as our storage adapter calls it (vendor-contracts §2): the
// RPC host (JSON bodies) under /dropbox/api, the content host (Dropbox-API-Arg
// header + bytes) under /dropbox/content, the refresh-token flow, tagged-union
// errors on 409, and 429s with Retry-After. Folder batches of ten or more
// complete asynchronously, as large batches do on the real service.
// Arguments are checked against the request structs of
// ../shared/vendor-apis/dropbox.json (Stone structs are closed), and route
// errors are the unions of files.stone and sharing.stone in
// dropbox/dropbox-api-spec (RelocationError, DeleteError, GetMetadataError,
// RevokeSharedLinkError). A shared link belongs to its item, not its path: it
// follows a move (dropbox.com/help/files-folders/shared-link-changes: links stay
// active when an item is renamed or moved, and only removing the link stops
// it); a revoked link stops working for good (help.dropbox.com/files-folders/
// share/remove-link), so revoking it again is shared_link_not_found.
// Its own faults (POST /_local/faults { vendor: 'dropbox', mode }):
//   write-contention  Dropbox's namespace write lock is busy (too_many_write_operations,
//                     which Dropbox says to retry with backoff, vendor-contracts §2 DB4):
//                     in a folder batch, every other entry, from the first, fails so (the rest are made);
//                     an upload is a 409 path/too_many_write_operations (WriteError), a move
//                     from_write/too_many_write_operations, a delete too_many_write_operations (DeleteError);
//                     any other call a 429 whose reason says so, with Retry-After.
//   revoke-token      the access token the call presents is revoked first, as a user
//                     unlinking the app does: the call gets 401 invalid_access_token.
//   team-only-links   a shared link it creates resolves to team_only, as under a team's
//                     policy that keeps links inside the team: create_shared_link_with_settings
//                     with no settings asks for public, but "the resolved visibility may depend
//                     on team and shared folder settings" (sharing.stone in dropbox-api-spec).
import { Hono, type Context } from 'hono';
import { randomBytes } from 'node:crypto';
import { declaredOnly, type Fields } from './declared.ts';
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
  /** LinkPermissions.resolved_visibility; public unless a team's policy said otherwise. */
  visibility?: 'public' | 'team_only';
}
interface State {
  entries: Record<string, Entry>;
  /** The live links, by their item's path_lower. */
  links: Record<string, Link>;
  /** Revoked links, kept to show in the recordings (by their item's id, which a move keeps); absent in older saved state. */
  revokedLinks?: Link[];
  tokens: Record<string, number>;
  jobs: Record<string, { checks: number; result: unknown }>;
}
const empty = (): State => ({ entries: {}, links: {}, revokedLinks: [], tokens: {}, jobs: {} });

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
/** A route error that is a bare tag of the route's union (e.g. RevokeSharedLinkError.shared_link_not_found). */
const taggedError = (c: Context, tag: string) => c.json({ error_summary: `${tag}/..`, error: { '.tag': tag } }, 409);
const malformedPath = (c: Context) =>
  c.json({ error_summary: 'path/malformed_path/..', error: { '.tag': 'path', path: { '.tag': 'malformed_path' } } }, 409);

export const DROPBOX_DIFFERENCES = [
  'Refuses any route, argument or OAuth parameter that the request structs of dropbox.json (or vendor-contracts §2, for the token endpoint) do not declare for the routes we call; an unknown route is a 404.',
  'Batches of ten or more paths always complete asynchronously, on the second check; smaller ones at once.',
  'Write contention and revoked tokens happen only when a fault asks for them (write-contention, revoke-token).',
  'Shared links are public and never expire; content_hash is not computed.',
  'A shared link URL is recorded, not served: it points at www.dropbox.com, which the local stack does not answer, revoked or not.',
  'A revoked link is kept in the recordings (sharedLinks, revoked: true); Dropbox forgets it.',
  'A delete removes for good; Dropbox keeps what files/delete_v2 deleted restorable for a while (files.stone: permanently_delete, for Business apps only, is the route that erases).',
  'Enforces no rate limit unless DROPBOX_RATE_LIMIT sets one (Dropbox publishes no figure); its 429 comes from the throttle fault.',
];

const any = (...names: string[]): Fields => Object.fromEntries(names.map((name) => [name, 'any']));
const OAUTH_PARAMS = ['grant_type', 'refresh_token', 'client_id', 'client_secret'];
const routeOf = (path: string) => path.replace(/^\/dropbox\/(api|content)\/2\//, '');

const PATH = /^(\/[^/\\<>:"|?*\u0000-\u001f]+)+$/;
const parentOf = (p: string) => p.slice(0, p.lastIndexOf('/')) || '/';

export function dropboxEmulator(): VendorEmulator {
  let state = empty();
  const app = new Hono().basePath('/dropbox');

  const presentedToken = (c: Context) => /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
  // A token that was issued and has expired says so; any other (revoked, never issued) is invalid.
  const authorised = (c: Context): Response | undefined => {
    const token = presentedToken(c);
    const expires = token ? state.tokens[token] : undefined;
    if (expires !== undefined && expires > Date.now()) return undefined;
    const tag = expires !== undefined ? 'expired_access_token' : 'invalid_access_token';
    return c.json({ error_summary: `${tag}/..`, error: { '.tag': tag } }, 401);
  };
  /** Calls under write contention (a fault): their writes meet too_many_write_operations. */
  const contended = new WeakSet<Request>();
  const teamOnly = new WeakSet<Request>();
  const contention = { '.tag': 'too_many_write_operations' };

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

  /** The entry at this path_lower and everything under it. */
  const subtree = (lower: string) => Object.values(state.entries).filter((e) => e.path_lower === lower || e.path_lower.startsWith(`${lower}/`));
  /** The path, or the first "name (n)" beside it that is free, as autorename does. */
  const freeName = (path: string) => {
    for (let n = 0; ; n++) {
      const candidate = n === 0 ? path : `${path} (${n})`;
      if (!state.entries[candidate.toLowerCase()]) return candidate;
    }
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

  app.use('/api/2/*', async (c, next) => authorised(c) ?? next());
  app.use('/content/2/*', async (c, next) => authorised(c) ?? next());
  app.use(
    '*',
    declaredOnly({
      base: '/dropbox',
      operations: [
        { method: 'POST', path: '/api/oauth2/token', query: OAUTH_PARAMS, argsIn: 'form', body: any(...OAUTH_PARAMS) },
        { method: 'POST', path: '/api/2/files/create_folder_batch', body: any('paths', 'autorename', 'force_async') },
        { method: 'POST', path: '/api/2/files/create_folder_batch/check', body: any('async_job_id') },
        {
          method: 'POST',
          path: '/api/2/sharing/create_shared_link_with_settings',
          body: { path: 'any', settings: any('require_password', 'link_password', 'expires', 'audience', 'access', 'requested_visibility', 'allow_download') },
        },
        { method: 'POST', path: '/api/2/sharing/list_shared_links', body: any('path', 'cursor', 'direct_only') },
        { method: 'POST', path: '/api/2/sharing/revoke_shared_link', body: any('url') },
        { method: 'POST', path: '/api/2/files/move_v2', body: any('from_path', 'to_path', 'allow_shared_folder', 'autorename', 'allow_ownership_transfer') },
        { method: 'POST', path: '/api/2/files/delete_v2', body: any('path', 'parent_rev') },
        {
          method: 'POST',
          path: '/api/2/files/get_metadata',
          body: any('path', 'include_media_info', 'include_deleted', 'include_has_explicit_shared_members', 'include_property_groups'),
        },
        {
          method: 'POST',
          path: '/content/2/files/upload',
          argsIn: { header: 'dropbox-api-arg' },
          body: any('path', 'mode', 'autorename', 'client_modified', 'mute', 'property_groups', 'strict_conflict', 'content_hash'),
        },
      ],
      refuse: (c, undeclared) => {
        if (undeclared.kind === 'operation') return c.text(`Unknown API function: "${routeOf(undeclared.path)}"`, 404);
        if (c.req.path.endsWith('/oauth2/token')) {
          return c.json({ error: 'invalid_request', error_description: `Unknown parameter ${undeclared.kind === 'query' ? undeclared.name : undeclared.path.join('.')}` }, 400);
        }
        const where = c.req.path.startsWith('/dropbox/content/') ? 'HTTP header "Dropbox-API-Arg"' : 'request body';
        const what = undeclared.kind === 'query' ? `unknown query parameter '${undeclared.name}'` : `unknown field '${undeclared.path.join('.')}'`;
        return c.text(`Error in call to API function "${routeOf(c.req.path)}": ${where}: ${what}`, 400);
      },
    }),
  );

  app.post('/api/2/files/create_folder_batch', async (c) => {
    const { paths, force_async } = (await c.req.json().catch(() => ({}))) as { paths?: string[]; force_async?: boolean };
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > 10000) return c.text('Error in call to API function: invalid paths', 400);
    const busy = contended.has(c.req.raw);
    const entries = paths.map((p, i) => {
      if (busy && i % 2 === 0) return { '.tag': 'failure', failure: { '.tag': 'path', path: contention } };
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
      ...(teamOnly.has(c.req.raw) ? { visibility: 'team_only' as const } : {}),
    };
    state.links[entry.path_lower] = link;
    return c.json(linkView(link));
  });

  app.post('/api/2/sharing/list_shared_links', async (c) => {
    const { path } = (await c.req.json().catch(() => ({}))) as { path?: string };
    const links = Object.values(state.links).filter((l) => !path || l.path_lower === path.toLowerCase());
    return c.json({ links: links.map(linkView), has_more: false });
  });

  app.post('/api/2/sharing/revoke_shared_link', async (c) => {
    const { url } = (await c.req.json().catch(() => ({}))) as { url?: string };
    if (typeof url !== 'string' || !URL.canParse(url)) return taggedError(c, 'shared_link_malformed');
    const live = Object.values(state.links).find((l) => l.url === url);
    if (!live) return taggedError(c, 'shared_link_not_found');
    delete state.links[live.path_lower];
    (state.revokedLinks ??= []).push(live);
    // The route's result is Void: JSON null.
    return c.json(null);
  });

  app.post('/api/2/files/get_metadata', async (c) => {
    const { path } = (await c.req.json().catch(() => ({}))) as { path?: string };
    if (typeof path !== 'string' || !PATH.test(path)) return conflict(c, 'path', 'malformed_path', { '.tag': 'malformed_path' });
    const entry = state.entries[path.toLowerCase()];
    return entry ? c.json(metadata(entry)) : conflict(c, 'path', 'not_found', { '.tag': 'not_found' });
  });

  // RelocationArg: from_path and to_path, autorename off unless asked. Missing parents of to_path are
  // made (WriteError, the union of what can be wrong at `to`, has no "not found").
  app.post('/api/2/files/move_v2', async (c) => {
    const arg = (await c.req.json().catch(() => ({}))) as { from_path?: string; to_path?: string; autorename?: boolean };
    const from = arg.from_path ?? '';
    const to = arg.to_path ?? '';
    if (!PATH.test(from)) return conflict(c, 'from_lookup', 'malformed_path', { '.tag': 'malformed_path' });
    if (!PATH.test(to)) return conflict(c, 'to', 'malformed_path', { '.tag': 'malformed_path' });
    if (contended.has(c.req.raw)) return conflict(c, 'from_write', 'too_many_write_operations', contention);
    const entry = state.entries[from.toLowerCase()];
    if (!entry) return conflict(c, 'from_lookup', 'not_found', { '.tag': 'not_found' });
    if (to.toLowerCase() === entry.path_lower || to.toLowerCase().startsWith(`${entry.path_lower}/`)) {
      return c.json({ error_summary: 'cant_move_folder_into_itself/..', error: { '.tag': 'cant_move_folder_into_itself' } }, 409);
    }
    const target = arg.autorename === true ? freeName(to) : to;
    const existing = state.entries[target.toLowerCase()];
    if (existing) {
      return c.json({ error_summary: `to/conflict/${existing.tag}/..`, error: { '.tag': 'to', to: { '.tag': 'conflict', conflict: { '.tag': existing.tag } } } }, 409);
    }
    const parent = parentOf(target);
    if (parent !== '/' && !state.entries[parent.toLowerCase()]) mkdir(parent);
    const fromLength = entry.path_display.length;
    for (const moved of subtree(entry.path_lower)) {
      const path = target + moved.path_display.slice(fromLength);
      delete state.entries[moved.path_lower];
      const link = state.links[moved.path_lower];
      delete state.links[moved.path_lower];
      Object.assign(moved, { path_display: path, path_lower: path.toLowerCase(), name: path.slice(path.lastIndexOf('/') + 1) });
      state.entries[moved.path_lower] = moved;
      if (link) state.links[moved.path_lower] = { ...link, path_lower: moved.path_lower, name: moved.name };
    }
    return c.json({ metadata: metadata(entry) });
  });

  // DeleteArg: a folder goes with all in it, and the live links of what it held with it.
  app.post('/api/2/files/delete_v2', async (c) => {
    const { path } = (await c.req.json().catch(() => ({}))) as { path?: string };
    if (typeof path !== 'string' || !PATH.test(path)) return conflict(c, 'path_lookup', 'malformed_path', { '.tag': 'malformed_path' });
    if (contended.has(c.req.raw)) return taggedError(c, 'too_many_write_operations');
    const entry = state.entries[path.toLowerCase()];
    if (!entry) return conflict(c, 'path_lookup', 'not_found', { '.tag': 'not_found' });
    for (const gone of subtree(entry.path_lower)) {
      delete state.entries[gone.path_lower];
      delete state.links[gone.path_lower];
    }
    return c.json({ metadata: metadata(entry) });
  });

  app.post('/content/2/files/upload', async (c) => {
    let arg: { path?: string; mode?: string | { '.tag': string }; autorename?: boolean };
    try {
      arg = JSON.parse(c.req.header('dropbox-api-arg') ?? '');
    } catch {
      return c.text('Error in call to API function "files/upload": Bad HTTP "Dropbox-API-Arg" header', 400);
    }
    const path = arg.path ?? '';
    if (!PATH.test(path)) return malformedPath(c);
    if (contended.has(c.req.raw)) {
      // UploadError.path is UploadWriteFailed: the WriteError under `reason`.
      return c.json({ error_summary: 'path/too_many_write_operations/..', error: { '.tag': 'path', reason: contention, upload_session_id: '' } }, 409);
    }
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

  /** Every link the entry has had: revoked ones first, then the live one. */
  const linksOf = (e: Entry) => {
    const live = state.links[e.path_lower];
    const links = [
      ...(state.revokedLinks ?? []).filter((l) => l.id === e.id).map((l) => ({ url: l.url, revoked: true })),
      ...(live ? [{ url: live.url, revoked: false }] : []),
    ];
    return links.length ? { sharedLinks: links } : {};
  };

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
            ...linksOf(e),
          })),
    },
    failure: (c) => c.text('Internal Server Error', 500),
    throttle: (c, seconds) =>
      c.json(
        { error_summary: 'too_many_requests/..', error: { reason: { '.tag': 'too_many_requests' }, retry_after: Math.ceil(seconds) } },
        429,
        { 'retry-after': String(Math.ceil(seconds)) },
      ),
    // Dropbox publishes no figure (vendor-contracts §2): nothing is enforced unless DROPBOX_RATE_LIMIT sets one.
    rateLimit: { setting: 'DROPBOX_RATE_LIMIT', published: null, subject: (c) => c.req.header('authorization') },
    reset: () => {
      const tokens = state.tokens; // issued tokens stay valid, as on the real service
      state = { ...empty(), tokens };
    },
    faultModes: {
      'write-contention': async (c, next, fault) => {
        const route = routeOf(c.req.path);
        if (['files/create_folder_batch', 'files/upload', 'files/move_v2', 'files/delete_v2'].includes(route)) {
          contended.add(c.req.raw);
          await next();
          return c.res;
        }
        const seconds = fault.retryAfterSeconds;
        return c.json({ error_summary: 'too_many_write_operations/..', error: { reason: contention, retry_after: seconds } }, 429, { 'retry-after': String(seconds) });
      },
      'team-only-links': async (c, next) => {
        teamOnly.add(c.req.raw);
        await next();
        return c.res;
      },
      'revoke-token': async (c, next) => {
        const token = presentedToken(c);
        if (token) delete state.tokens[token];
        await next();
        return c.res;
      },
    },
    differences: DROPBOX_DIFFERENCES,
    dump: () => state,
    load: (saved) => (state = { revokedLinks: [], ...(saved as State) }),
  };
}

function linkView(l: Link) {
  return {
    '.tag': l.tag,
    url: l.url,
    name: l.name,
    id: l.id,
    path_lower: l.path_lower,
    link_permissions: { can_revoke: true, resolved_visibility: { '.tag': l.visibility ?? 'public' } },
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
