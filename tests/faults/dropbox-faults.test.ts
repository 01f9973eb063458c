// Dropbox's own faults, through real onboardings on a stack of its own:
// write contention (too_many_write_operations, which Dropbox says to retry:
// per entry of a folder batch, and as a 409 of an upload) and a revoked
// access token. Each ends with everything made once.
import { afterEach, describe, expect, it } from 'vitest';
import { bakeryRoutes } from '../fixtures/bakery-site.ts';
import { api, recorded } from '../support/http.ts';
import { clearFaults, expectProvisionedOnce, followRun, onboard, SERVICE_KEY, setFault, uniqueToken, vendorRequests } from '../support/onboarding.ts';
import { useSite } from '../support/site.ts';

const site = useSite(bakeryRoutes);

function company(scenario: string) {
  const t = uniqueToken();
  const name = `dropbox ${scenario} ${t}`;
  return { name, slug: `dropbox-${scenario}-${t}`, email: `dropbox-${scenario}-${t}@example.com` };
}

const folderCount = async (slug: string) =>
  (await recorded<{ path: string; type: string }[]>('storage')).filter((e) => e.path.startsWith(`/Clients/${slug}/`) && e.type === 'folder').length;

afterEach(clearFaults);

describe('dropbox write contention', () => {
  it('per entry of a folder batch: the step waits in the state machine and sends the tree again, and every folder is made once', async () => {
    const c = company('contended');
    await setFault({ vendor: 'dropbox', mode: 'write-contention', count: 1, match: c.slug });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations.dropbox).toBe('success');
    const batches = (await vendorRequests('dropbox', since)).filter((r) => r.path.endsWith('/files/create_folder_batch'));
    expect(batches.map((b) => b.fault)).toEqual(['write-contention', undefined]);
    // Contention is the vendor's "later": the step goes back to the state machine, and its next run sends the tree's
    // eleven paths again (those made the first time answer as existing folders).
    expect(batches.map((b) => JSON.parse(b.text.slice(b.text.indexOf(' ') + 1)).paths.length)).toEqual([11, 11]);
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });

  it("as a 409 of an upload (the enhanced onboarding's website CSV): sent again, written once, the folders made once", async () => {
    const t = uniqueToken();
    const slug = `bakery-${t}`;
    await setFault({ vendor: 'dropbox', mode: 'write-contention', count: 1, match: '/files/upload' });
    const since = Date.now();
    const body = { email: `owner-${t}@example.com`, company_name: `Bakery ${t}`, website: `http://bakery-${t}.localhost:${site.port}/` };
    const reply = await followRun(await api('/api/onboarding/enhanced', { body, headers: SERVICE_KEY }), 120);
    expect(reply.status).toBe(200);
    expect(reply.body.integrations).toMatchObject({ dropbox: 'success', upload: 'success' });
    const uploads = (await vendorRequests('dropbox', since)).filter((r) => r.path.endsWith('/files/upload'));
    expect(uploads.map((u) => [u.fault, u.status])).toEqual([
      ['write-contention', 409],
      [undefined, 200],
    ]);
    const files = (await recorded<{ path: string; type: string }[]>('storage')).filter((e) => e.path.startsWith(`/Clients/${slug}/`) && e.type === 'file');
    expect(files.map((f) => f.path)).toEqual([`/Clients/${slug}/04 Website/website-content.csv`]);
    expect(await folderCount(slug)).toBe(10);
  });
});

describe('a revoked dropbox token', () => {
  it('is dropped and refreshed once; the run succeeds and makes everything once', async () => {
    // A first run leaves an access token cached in the storage step's Lambda.
    const warm = company('warm');
    expect((await onboard({ email: warm.email, companyName: warm.name })).body.integrations.dropbox).toBe('success');

    const c = company('revoked');
    await setFault({ vendor: 'dropbox', mode: 'revoke-token', count: 1, match: c.slug });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations.dropbox).toBe('success');
    const calls = await vendorRequests('dropbox', since);
    const revoked = calls.findIndex((r) => r.fault === 'revoke-token');
    expect(calls[revoked]).toMatchObject({ status: 401 });
    expect(calls.slice(revoked + 1).filter((r) => r.path.endsWith('/oauth2/token'))).toHaveLength(1);
    expect(calls[revoked + 2]).toMatchObject({ path: calls[revoked]!.path, status: 200 });
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });
});

describe("a Dropbox team whose policy keeps shared links inside the team", () => {
  it("fails the storage step by the link's visibility, the folders made, and e-mails the client no link it could not open", async () => {
    const c = company('team-only');
    await setFault({ vendor: 'dropbox', mode: 'team-only-links', count: 100, match: c.slug });
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(500);
    expect(reply.body.integrations).toMatchObject({ dropbox: 'failed', resend: 'success' });
    expect(reply.body.errors).toEqual([expect.objectContaining({ integration: 'dropbox', context: expect.objectContaining({ transient: false, vendorCode: 'link_not_public/team_only' }) })]);
    expect(await folderCount(c.slug)).toBe(10);
    const emails = (await recorded<{ to: string[]; subject: string }[]>('emails')).filter((e) => e.to.includes(c.email));
    expect(emails.map((e) => e.subject)).toContain(`Welcome aboard, ${c.name}`);
    expect(emails.map((e) => e.subject)).not.toContain(`Your shared workspace for ${c.name} is ready`);
  });
});
