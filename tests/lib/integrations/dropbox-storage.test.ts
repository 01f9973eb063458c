import { beforeEach, describe, expect, it } from 'vitest';
import { dropboxStorage, headerSafeJson } from '../../../lib/integrations/dropbox-storage.ts';
import { dropboxVendor } from '../../../local/emulators/dropbox.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(dropboxVendor);
const storage = (overrides = {}) =>
  dropboxStorage(
    {
      refreshToken: emu.env.DROPBOX_REFRESH_TOKEN,
      appKey: emu.env.DROPBOX_APP_KEY,
      appSecret: emu.env.DROPBOX_APP_SECRET,
      apiBase: emu.env.DROPBOX_API_BASE!,
      contentBase: emu.env.DROPBOX_CONTENT_BASE!,
      ...overrides,
    },
    quickPolicy,
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

  it('is refused with a bad refresh token', async () => {
    const error = await storage({ refreshToken: 'nope' }).ensureFolders(['/a']).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected' });
    expect(error.context.status).toBe(400);
  });
});
