// Dropbox API v2 (vendor-contracts §2). Dropbox has no idempotency keys:
// folders are created with autorename off and a "conflict/folder" answer
// means "already there"; an existing shared link is reused. Taking back is as
// forgiving of a call already made: a link not found is revoked, a folder not
// found is deleted, and a move whose source is gone and whose destination holds
// a folder is done (each a route error of files.stone or sharing.stone).
// too_many_write_operations (another writer holds the namespace's write
// lock) is to be retried with backoff (DB4): as a 429 or a 409 by the HTTP
// client, as failed entries of a folder batch by sending just those again;
// when the attempts run out it is VendorThrottled, and the state machine's
// throttle retry takes over. A 401 (a revoked or expired token) drops the
// cached access token and the call is sent once more with a fresh one.
import { VendorError } from '../errors.ts';
import { retryAfterHeader, vendorHttp } from './http-client.ts';
import { AttemptFailed, withRetries, type RetryPolicy } from './retry.ts';
import type { Storage } from './storage.ts';

interface Settings {
  accessToken?: string;
  refreshToken?: string;
  appKey?: string;
  appSecret?: string;
  apiBase: string;
  contentBase: string;
}

type Tagged = { '.tag': string; [k: string]: unknown };
/** A shared link's metadata, as much of it as the adapter reads (sharing.stone, SharedLinkMetadata). */
type LinkMetadata = { url?: string; link_permissions?: { resolved_visibility?: Tagged; effective_audience?: Tagged } };
type BatchResult = { '.tag': 'complete'; entries: Tagged[] } | { '.tag': 'async_job_id'; async_job_id: string } | { '.tag': 'in_progress' } | { '.tag': 'failed'; failed: Tagged };

const REFRESH_MARGIN_MS = 5 * 60_000;
const JOB_POLLS = 20;

export function dropboxStorage(settings: Settings, policy: RetryPolicy & { timeoutMs: number }): Storage {
  // Short-lived access tokens come from the refresh token and are reused until shortly before they expire.
  let cached: { token: string; expiresAt: number } | undefined;
  const tokenHttp = vendorHttp({ vendor: 'dropbox', baseUrl: settings.apiBase, headers: () => ({}), policy, retryHint: retryAfterHeader });
  const accessToken = async () => {
    if (!settings.refreshToken) return settings.accessToken!;
    if (cached && cached.expiresAt - REFRESH_MARGIN_MS > Date.now()) return cached.token;
    const res = await tokenHttp<{ access_token: string; expires_in: number }>('refresh the access token', {
      method: 'POST',
      path: '/oauth2/token',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: settings.refreshToken }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${settings.appKey}:${settings.appSecret}`).toString('base64')}`,
      },
    });
    cached = { token: res.body.access_token, expiresAt: Date.now() + res.body.expires_in * 1000 };
    return cached.token;
  };

  const http = vendorHttp({
    vendor: 'dropbox',
    baseUrl: `${settings.apiBase}/2`,
    headers: async () => ({ authorization: `Bearer ${await accessToken()}` }),
    policy,
    retryHint: (res, body) => retryAfterHeader(res) ?? retryAfterBody(body),
    errorCode: (body) => summaryCode(body),
    isThrottle: (res, body) => res.status === 409 && isContention(body),
    // Only a token we refresh ourselves can be replaced.
    reauthenticate: settings.refreshToken ? () => (cached = undefined) : undefined,
  });

  const isFolderConflict = (failure: Tagged | undefined) => {
    const path = failure?.path as Tagged | undefined;
    return path?.['.tag'] === 'conflict' && (path.conflict as Tagged | undefined)?.['.tag'] === 'folder';
  };

  const refuse = (operation: string, code: string) => VendorError.rejected('dropbox', operation, { vendorCode: code });

  async function createFolders(paths: string[]): Promise<Tagged[]> {
    let result = (
      await http<BatchResult>('create folders', { path: '/files/create_folder_batch', json: { paths, autorename: false, force_async: false } })
    ).body;
    if (result['.tag'] === 'async_job_id') {
      // Large batches finish asynchronously: poll the job, backing off.
      const jobId = result.async_job_id;
      for (let poll = 0; ; poll++) {
        if (poll >= JOB_POLLS) {
          throw new VendorError('dropbox', 'dropbox: create folders did not finish in time', { transient: true, operation: 'create folders' });
        }
        await new Promise((r) => setTimeout(r, Math.min(1000, 100 * 2 ** poll)));
        result = (await http<BatchResult>('check folder creation', { path: '/files/create_folder_batch/check', json: { async_job_id: jobId } })).body;
        if (result['.tag'] !== 'in_progress') break;
      }
    }
    if (result['.tag'] === 'failed') throw refuse('create folders', `failed/${result.failed['.tag']}`);
    if (result['.tag'] !== 'complete') throw refuse('create folders', `unexpected/${result['.tag']}`);
    return result.entries;
  }

  /** Creates what is missing; entries that met write contention go again, on their own, after a backoff. */
  async function ensureFolders(paths: string[]) {
    let pending = paths;
    await withRetries('dropbox', 'create folders', policy, async () => {
      if (pending.length === 0) return;
      const entries = await createFolders(pending);
      const contended: string[] = [];
      for (const [i, entry] of entries.entries()) {
        if (entry['.tag'] === 'success') continue;
        const failure = entry.failure as Tagged | undefined;
        if (isFolderConflict(failure)) continue;
        const reason = (failure?.path as Tagged | undefined)?.['.tag'] ?? failure?.['.tag'] ?? 'unknown';
        if (reason === 'too_many_write_operations') contended.push(pending[i]!);
        else throw refuse(`create folder ${pending[i]}`, `path/${reason}`);
      }
      pending = contended;
      if (contended.length) {
        throw new AttemptFailed({ transient: true, throttled: true, reason: `met write contention on ${contended.length} folder(s)`, vendorCode: 'too_many_write_operations' });
      }
    });
  }

  async function sharedLink(path: string) {
    const res = await http<LinkMetadata & { error?: Tagged }>('create a shared link', {
      path: '/sharing/create_shared_link_with_settings',
      json: { path },
      accept: [409],
    });
    if (res.status === 200 && res.body.url) return publicUrl(res.body);
    const error = res.body.error;
    if (error?.['.tag'] !== 'shared_link_already_exists') throw refuse('create a shared link', summaryCode(res.body) ?? 'conflict');
    const existing = (error.shared_link_already_exists as Tagged | undefined)?.metadata as LinkMetadata | undefined;
    if (existing?.url) return publicUrl(existing);
    // The existing link is only included when settings match; list it instead.
    const listed = await http<{ links: LinkMetadata[] }>('list shared links', { path: '/sharing/list_shared_links', json: { path, direct_only: true } });
    const link = listed.body.links[0];
    if (!link?.url) throw refuse('find the existing shared link', 'shared_link_already_exists');
    return publicUrl(link);
  }

  /**
   * The link is for the client, outside the agency's Dropbox team, so it must open for anyone. A link
   * asked for with no settings is public, but a team's policy can make it resolve otherwise
   * (sharing.stone: LinkPermissions.resolved_visibility, or effective_audience for some links);
   * such a link is refused, by its visibility, rather than stored and e-mailed to someone it
   * will not open for.
   */
  function publicUrl(link: LinkMetadata): string {
    const permissions = link.link_permissions;
    const visibility = permissions?.resolved_visibility?.['.tag'] ?? permissions?.effective_audience?.['.tag'];
    if (visibility !== undefined && visibility !== 'public') throw refuse('share the client folder', `link_not_public/${visibility}`);
    return link.url!;
  }

  async function writeFile(path: string, content: string) {
    const bytes = new TextEncoder().encode(content);
    const res = await http<{ path_display: string; size: number }>(`upload ${path}`, {
      baseUrl: `${settings.contentBase}/2`,
      path: '/files/upload',
      body: bytes,
      headers: {
        'content-type': 'application/octet-stream',
        'dropbox-api-arg': headerSafeJson({ path, mode: 'overwrite', autorename: false, mute: true }),
      },
    });
    return { path: res.body.path_display, size: res.body.size };
  }

  async function revokeSharedLink(url: string) {
    const res = await http<{ error?: Tagged } | null>('revoke the shared link', { path: '/sharing/revoke_shared_link', json: { url }, accept: [409] });
    if (res.status === 200) return;
    // Revoked before (an earlier attempt whose answer was lost), or gone with its item.
    if (res.body?.error?.['.tag'] === 'shared_link_not_found') return;
    throw refuse('revoke the shared link', summaryCode(res.body) ?? 'conflict');
  }

  /**
   * Autorename stays off: a folder already at `to` (an earlier archive of the same client) is
   * reported, never moved beside it under another name, where nothing would look for it.
   */
  async function moveFolder(from: string, to: string) {
    const res = await http('move a folder', { path: '/files/move_v2', json: { from_path: from, to_path: to, autorename: false }, accept: [409] });
    if (res.status === 200) return;
    const code = summaryCode(res.body) ?? 'conflict';
    // Moved before: nothing at `from` any more, and a folder at `to`.
    const moved =
      (code === 'from_lookup/not_found' && (await kindAt(to)) === 'folder') ||
      (code === 'to/conflict/folder' && (await kindAt(from)) === undefined);
    if (!moved) throw refuse(`move ${from}`, code);
  }

  async function deleteFolder(path: string) {
    const res = await http('delete a folder', { path: '/files/delete_v2', json: { path }, accept: [409] });
    if (res.status === 200 || summaryCode(res.body) === 'path_lookup/not_found') return;
    throw refuse(`delete ${path}`, summaryCode(res.body) ?? 'conflict');
  }

  /** What is at the path: 'folder', 'file', or undefined for nothing. */
  async function kindAt(path: string): Promise<string | undefined> {
    const res = await http<Tagged>('look at a path', { path: '/files/get_metadata', json: { path }, accept: [409] });
    if (res.status === 200) return res.body['.tag'];
    if (summaryCode(res.body) === 'path/not_found') return undefined;
    throw refuse(`look at ${path}`, summaryCode(res.body) ?? 'conflict');
  }

  return { ensureFolders, sharedLink, writeFile, revokeSharedLink, moveFolder, deleteFolder };
}

/** Dropbox-API-Arg travels in a header: every character past ASCII must be escaped as \uXXXX. */
export function headerSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function summaryCode(body: unknown): string | undefined {
  const summary = (body as { error_summary?: string } | undefined)?.error_summary;
  return summary?.replace(/\/\.*$/, '').replace(/\/+$/, '');
}

/** Dropbox's write-lock contention, inside a route's error (a 409's WriteError, or an upload's reason). */
function isContention(body: unknown): boolean {
  return /(^|\/)too_many_write_operations(\/|$)/.test((body as { error_summary?: string } | undefined)?.error_summary ?? '');
}

function retryAfterBody(body: unknown): number | undefined {
  const seconds = (body as { error?: { retry_after?: number } } | undefined)?.error?.retry_after;
  return typeof seconds === 'number' ? seconds * 1000 : undefined;
}
