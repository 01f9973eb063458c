import { beforeEach, describe, expect, it } from 'vitest';
import { dropboxStorage, headerSafeJson } from '../../../lib/integrations/dropbox-storage.ts';
import { dropboxVendor } from '../../../local/emulators/dropbox.ts';
import { countingPace, quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(dropboxVendor);
const storage = (overrides = {}, policy: Parameters<typeof dropboxStorage>[1] = quickPolicy) =>
  dropboxStorage(
    {
      refreshToken: emu.env.DROPBOX_REFRESH_TOKEN,
      appKey: emu.env.DROPBOX_APP_KEY,
      appSecret: emu.env.DROPBOX_APP_SECRET,
      apiBase: emu.env.DROPBOX_API_BASE!,
      contentBase: emu.env.DROPBOX_CONTENT_BASE!,
      ...overrides,
    },
    policy,
  );
const tree = Array.from({ length: 10 }, (_, i) => `/Clients/acme/${String(i + 1).padStart(2, '0')} Folder`);

describe('the Dropbox storage', () => {
  beforeEach(() => emu.reset());

  it('creates a folder tree once (the batch completes asynchronously), parents included', async () => {
    const s = storage();
    await s.ensureFolders(tree);
    await s.ensureFolders(tree);
    const entries = await emu.get('storage');
    expect(entries.map((e: { path: string }) => e.path)).toEqual(['/Clients', '/Clients/acme', ...tree]);
  });

  it('creates one shared link and reuses it', async () => {
    const s = storage();
    await s.ensureFolders(['/Clients/globex']);
    const first = await s.sharedLink('/Clients/globex');
    const second = await s.sharedLink('/Clients/globex');
    expect(first).toMatch(/^https:\/\/www\.dropbox\.com\/scl\/fo\//);
    expect(second).toBe(first);
  });

  it("refuses a link a team's policy keeps inside the team, when it is made and when it is found again", async () => {
    const s = storage();
    await s.ensureFolders(['/Clients/initech']);
    await emu.fault({ vendor: 'dropbox', mode: 'team-only-links', count: 1 });
    for (let i = 0; i < 2; i++) {
      const error = await s.sharedLink('/Clients/initech').catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorRejected', context: { vendorCode: 'link_not_public/team_only' } });
    }
  });

  it('writes a file with a non-ASCII name, replacing earlier versions', async () => {
    const s = storage();
    await s.writeFile('/Clients/café/pages.csv', 'a,b\n1,2\n');
    await s.writeFile('/Clients/café/pages.csv', 'a,b\n3,4\n');
    const file = (await emu.get('storage')).find((e: { path: string }) => e.path === '/Clients/café/pages.csv');
    expect(file).toMatchObject({ type: 'file', content: 'a,b\n3,4\n' });
    expect(headerSafeJson({ p: 'café' })).toBe('{"p":"caf\\u00e9"}');
  });

  it('honours Retry-After when throttled', async () => {
    await emu.fault({ vendor: 'dropbox', mode: 'throttle', count: 1, retryAfterSeconds: 1, match: 'create_folder' });
    await storage().ensureFolders(['/Clients/throttled']);
    expect((await emu.get('storage')).map((e: { path: string }) => e.path)).toContain('/Clients/throttled');
  });

  it('reports a folder path taken by a file as a refusal', async () => {
    const s = storage();
    await s.writeFile('/Clients/x', 'not a folder');
    const error = await s.ensureFolders(['/Clients/x', '/Clients/y']).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected', vendor: 'dropbox' });
    expect(error.context.vendorCode).toBe('path/conflict');
  });

  const calls = async (route: string) => (await emu.get<{ path: string; fault?: string; status?: number }[]>('requests?vendor=dropbox')).filter((r) => r.path.endsWith(route));

  it('sends again, after a backoff, only the entries of a folder batch that met write contention', async () => {
    await emu.fault({ vendor: 'dropbox', mode: 'write-contention', count: 1, match: 'create_folder_batch' });
    await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
    await storage().ensureFolders(tree);
    expect((await emu.get('storage')).map((e: { path: string }) => e.path)).toEqual(['/Clients', '/Clients/acme', ...tree]);
    const batches = await calls('/files/create_folder_batch');
    expect(batches.map((b) => b.fault)).toEqual(['write-contention', undefined]);
    const [, again] = (await emu.get<{ path: string; text: string }[]>('requests?vendor=dropbox&match=create_folder_batch%20')).filter((r) => r.path.endsWith('create_folder_batch'));
    expect(JSON.parse(again!.text.slice(again!.text.indexOf(' ') + 1)).paths).toEqual(tree.filter((_, i) => i % 2 === 0));
  });

  it('retries an upload that met write contention (a 409 whose WriteError says so), and a call that met it as a 429', async () => {
    await emu.fault({ vendor: 'dropbox', mode: 'write-contention', count: 1, match: 'files/upload' });
    await emu.fault({ vendor: 'dropbox', mode: 'write-contention', count: 1, match: 'list_shared_links' });
    await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
    await storage().writeFile('/Clients/busy/pages.csv', 'a\n');
    expect((await calls('/files/upload')).map((c) => c.status)).toEqual([409, 200]);
    expect((await emu.get('storage')).find((e: { path: string }) => e.path === '/Clients/busy/pages.csv')).toMatchObject({ content: 'a\n' });
  });

  it('gives up on lasting write contention as VendorThrottled, for the state machine to retry later', async () => {
    await emu.fault({ vendor: 'dropbox', mode: 'write-contention', count: 100, match: 'create_folder_batch' });
    const error = await storage().ensureFolders(['/Clients/locked/a', '/Clients/locked/b']).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorThrottled', vendor: 'dropbox', context: { transient: true, throttled: true, vendorCode: 'too_many_write_operations' } });
    await emu.reset();
  });

  it('drops a revoked access token and refreshes it once', async () => {
    const s = storage();
    await s.ensureFolders(['/Clients/warm']);
    await emu.fault({ vendor: 'dropbox', mode: 'revoke-token', count: 1, match: 'create_folder_batch' });
    await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
    await s.ensureFolders(['/Clients/after-revocation']);
    expect((await calls('/files/create_folder_batch')).map((c) => c.status)).toEqual([401, 200]);
    expect(await calls('/oauth2/token')).toHaveLength(1);
    expect((await emu.get('storage')).map((e: { path: string }) => e.path)).toContain('/Clients/after-revocation');
  });

  it('cannot replace a fixed access token: a 401 for it is a refusal', async () => {
    const refreshed = await fetch(`${emu.env.DROPBOX_API_BASE}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: emu.env.DROPBOX_REFRESH_TOKEN!, client_id: emu.env.DROPBOX_APP_KEY!, client_secret: emu.env.DROPBOX_APP_SECRET! }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const fixed = storage({ refreshToken: undefined, accessToken: refreshed.access_token });
    await fixed.ensureFolders(['/Clients/fixed']);
    await emu.fault({ vendor: 'dropbox', mode: 'revoke-token', count: 1 });
    const error = await fixed.ensureFolders(['/Clients/fixed-2']).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected', context: { status: 401, vendorCode: 'invalid_access_token' } });
  });

  it('is refused, in Dropbox\'s error shape, an argument the route does not declare', async () => {
    const token = await fetch(`${emu.env.DROPBOX_API_BASE}/oauth2/token?grant_type=refresh_token&refresh_token=${emu.env.DROPBOX_REFRESH_TOKEN}&client_id=${emu.env.DROPBOX_APP_KEY}&client_secret=${emu.env.DROPBOX_APP_SECRET}`, {
      method: 'POST',
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const res = await fetch(`${emu.env.DROPBOX_API_BASE}/2/files/create_folder_batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ paths: ['/x'], autorename: false, recursive: true }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('Error in call to API function "files/create_folder_batch": request body: unknown field \'recursive\'');
  });

  it('is refused with a bad refresh token', async () => {
    const error = await storage({ refreshToken: 'nope' }).ensureFolders(['/a']).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected' });
    expect(error.context.status).toBe(400);
  });

  describe('taking back a client folder: link revoked, folder moved, folder deleted', () => {
    type Recorded = { path: string; type: string; sharedLink?: string; sharedLinks?: { url: string; revoked: boolean }[] };
    const entries = () => emu.get<Recorded[]>('storage');
    const at = async (path: string) => (await entries()).find((e) => e.path === path);
    const paths = async () => (await entries()).map((e) => e.path);
    const rpc = async (route: string, body: object) => {
      const token = await fetch(`${emu.env.DROPBOX_API_BASE}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: emu.env.DROPBOX_REFRESH_TOKEN!, client_id: emu.env.DROPBOX_APP_KEY!, client_secret: emu.env.DROPBOX_APP_SECRET! }),
      }).then((r) => r.json() as Promise<{ access_token: string }>);
      const res = await fetch(`${emu.env.DROPBOX_API_BASE}/2/${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { error?: { '.tag': string } } | null };
    };

    /** A client's folder with a subfolder, a file and a public link, as onboarding leaves it. */
    async function client(slug: string) {
      const s = storage();
      await s.ensureFolders([`/Clients/${slug}/01 Admin`]);
      await s.writeFile(`/Clients/${slug}/01 Admin/pages.csv`, 'a\n');
      return s.sharedLink(`/Clients/${slug}`);
    }

    it('revokes the link once, however often it is asked; a new one can be made after', async () => {
      const url = await client('acme');
      const s = storage();
      await s.revokeSharedLink(url);
      await s.revokeSharedLink(url);
      expect(await at('/Clients/acme')).toMatchObject({ sharedLinks: [{ url, revoked: true }] });
      expect((await at('/Clients/acme'))!.sharedLink).toBeUndefined();
      const again = await s.sharedLink('/Clients/acme');
      expect(again).not.toBe(url);
      expect(await at('/Clients/acme')).toMatchObject({ sharedLink: again, sharedLinks: [{ url, revoked: true }, { url: again, revoked: false }] });
    });

    it("answers a revoked or unknown link as Dropbox does: 409 shared_link_not_found (sharing.stone's SharedLinkError)", async () => {
      const url = await client('globex');
      expect(await rpc('sharing/revoke_shared_link', { url })).toEqual({ status: 200, body: null });
      expect(await rpc('sharing/revoke_shared_link', { url })).toEqual({ status: 409, body: { error_summary: 'shared_link_not_found/..', error: { '.tag': 'shared_link_not_found' } } });
      expect((await rpc('sharing/revoke_shared_link', { url: 'not a link' })).body?.error).toEqual({ '.tag': 'shared_link_malformed' });
    });

    it('moves a folder with all in it (its link goes with it), once however often it is asked', async () => {
      const url = await client('initech');
      const s = storage();
      await s.moveFolder('/Clients/initech', '/Clients/_Archive/initech');
      await s.moveFolder('/Clients/initech', '/Clients/_Archive/initech');
      expect(await paths()).toEqual(['/Clients', '/Clients/_Archive', '/Clients/_Archive/initech', '/Clients/_Archive/initech/01 Admin', '/Clients/_Archive/initech/01 Admin/pages.csv']);
      expect(await at('/Clients/_Archive/initech')).toMatchObject({ sharedLink: url });
      expect(await at('/Clients/_Archive/initech/01 Admin/pages.csv')).toMatchObject({ type: 'file', content: 'a\n' });
      // And back (a reopened account), without touching anything beside it.
      await s.moveFolder('/Clients/_Archive/initech', '/Clients/initech');
      expect(await paths()).toEqual(['/Clients', '/Clients/_Archive', '/Clients/initech', '/Clients/initech/01 Admin', '/Clients/initech/01 Admin/pages.csv']);
    });

    it('refuses a move onto a folder already there, and one whose folder is nowhere; neither renames nor loses anything', async () => {
      await client('hooli');
      await storage().ensureFolders(['/Clients/_Archive/hooli']);
      const s = storage();
      const taken = await s.moveFolder('/Clients/hooli', '/Clients/_Archive/hooli').catch((e) => e);
      expect(taken).toMatchObject({ name: 'VendorRejected', vendor: 'dropbox', context: { vendorCode: 'to/conflict/folder' } });
      expect(await paths()).toContain('/Clients/hooli/01 Admin/pages.csv');
      expect((await paths()).filter((p) => p.startsWith('/Clients/_Archive/hooli '))).toEqual([]);
      const nowhere = await s.moveFolder('/Clients/nobody', '/Clients/_Archive/nobody').catch((e) => e);
      expect(nowhere).toMatchObject({ name: 'VendorRejected', context: { vendorCode: 'from_lookup/not_found' } });
    });

    it('deletes a folder with all in it (its link dies with it), once however often it is asked', async () => {
      const url = await client('umbrella');
      await client('umbrellas');
      const s = storage();
      await s.deleteFolder('/Clients/umbrella');
      await s.deleteFolder('/Clients/umbrella');
      expect((await paths()).filter((p) => p.startsWith('/Clients/umbrella'))).toEqual(['/Clients/umbrellas', '/Clients/umbrellas/01 Admin', '/Clients/umbrellas/01 Admin/pages.csv']);
      expect(await rpc('sharing/revoke_shared_link', { url })).toMatchObject({ status: 409, body: { error: { '.tag': 'shared_link_not_found' } } });
    });

    it('fails transiently when Dropbox keeps failing, and finishes when asked again', async () => {
      const url = await client('soylent');
      await emu.fault({ vendor: 'dropbox', mode: 'fail', count: 3, match: 'revoke_shared_link' });
      const error = await storage().revokeSharedLink(url).catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorUnavailable', vendor: 'dropbox', context: { transient: true, status: 500 } });
      await storage().revokeSharedLink(url);
      expect(await at('/Clients/soylent')).toMatchObject({ sharedLinks: [{ url, revoked: true }] });
    });

    it('honours Retry-After, and retries a move or a delete that met write contention', async () => {
      await client('wonka');
      await client('tyrell');
      await emu.fault({ vendor: 'dropbox', mode: 'throttle', count: 1, retryAfterSeconds: 1, match: 'move_v2' });
      await emu.fault({ vendor: 'dropbox', mode: 'write-contention', count: 1, match: 'move_v2' });
      await emu.fault({ vendor: 'dropbox', mode: 'write-contention', count: 1, match: 'delete_v2' });
      await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
      await storage().moveFolder('/Clients/wonka', '/Clients/_Archive/wonka');
      await storage().deleteFolder('/Clients/tyrell');
      expect(await paths()).toContain('/Clients/_Archive/wonka/01 Admin/pages.csv');
      expect((await paths()).some((p) => p.startsWith('/Clients/tyrell'))).toBe(false);
      const calls = await emu.get<{ path: string; status?: number }[]>('requests?vendor=dropbox');
      expect(calls.filter((c) => c.path.endsWith('/files/move_v2')).map((c) => c.status)).toEqual([429, 409, 200]);
      expect(calls.filter((c) => c.path.endsWith('/files/delete_v2')).map((c) => c.status)).toEqual([409, 200]);
    });

    it('gives up on lasting write contention as VendorThrottled', async () => {
      await client('cyberdyne');
      await emu.fault({ vendor: 'dropbox', mode: 'write-contention', count: 10, match: 'delete_v2' });
      const error = await storage().deleteFolder('/Clients/cyberdyne').catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorThrottled', context: { transient: true, throttled: true, vendorCode: 'too_many_write_operations' } });
      await emu.reset();
    });

    it('takes its pace for each request, and hands a throttle up to the step as MustWait', async () => {
      const url = await client('oscorp');
      const pace = countingPace('dropbox');
      await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
      const paced = storage({}, { ...quickPolicy, pace });
      await paced.revokeSharedLink(url);
      await paced.moveFolder('/Clients/oscorp', '/Clients/_Archive/oscorp');
      await paced.moveFolder('/Clients/oscorp', '/Clients/_Archive/oscorp');
      await paced.deleteFolder('/Clients/_Archive/oscorp');
      expect(pace.taken).toBe((await emu.get<unknown[]>('requests?vendor=dropbox')).length);
      await emu.fault({ vendor: 'dropbox', mode: 'throttle', count: 1, retryAfterSeconds: 2, match: 'delete_v2' });
      const error = await paced.deleteFolder('/Clients/_Archive/oscorp').catch((e) => e);
      expect(error).toMatchObject({ name: 'MustWait', vendor: 'dropbox' });
      expect(pace.laters).toEqual([2000]);
    });
  });
});
