// Work an anonymous or ordinary caller can make the service do is bounded,
// tried over HTTP as an attacker would: oversized input is refused with the
// error shape before it reaches the data store, onboarding submissions are
// rate limited per user, and /status neither details the integrations to
// strangers nor probes a vendor more than once per 30 s however often it is
// asked.
import { describe, expect, it } from 'vitest';
import { api, errorCode, stack } from '../support/http.ts';
import { SERVICE_KEY, uniqueToken } from '../support/onboarding.ts';
import { bearer, signedInUser } from '../support/users.ts';

const ADMIN_KEY = { 'x-admin-key': 'local-admin-api-key' };

/** A valid onboarding body whose metadata serialises to about `bytes` bytes, spread over allowed shapes. */
function bodyWithMetadata(bytes: number) {
  const t = uniqueToken();
  const value = 'x'.repeat(1900);
  const metadata: Record<string, Record<string, string>> = {};
  let size = 0;
  for (let k = 0; size < bytes && k < 50; k++) {
    const inner: Record<string, string> = {};
    for (let j = 0; size < bytes && j < 50; j++, size += value.length + 10) inner[`f${j}`] = value;
    metadata[`k${k}`] = inner;
  }
  return { email: `big-${t}@example.com`, companyName: `Big ${t}`, metadata };
}

describe('bounded input', () => {
  it('refuses 0.5 MB of metadata with 400 naming the field (or 413), in the error shape', async () => {
    const body = bodyWithMetadata(512 * 1024);
    expect(JSON.stringify(body).length).toBeGreaterThan(500_000);
    const reply = await api('/api/onboarding-v2', { body, headers: SERVICE_KEY });
    expect([400, 413], reply.text.slice(0, 300)).toContain(reply.status);
    errorCode(reply);
    if (reply.status === 400) expect(reply.body.error.details.map((d: { path: string }) => d.path).join(' ')).toContain('/body/metadata');
  });

  it('refuses a 5 MB body with 413 in the error shape', async () => {
    const body = bodyWithMetadata(5 * 1024 * 1024);
    expect(JSON.stringify(body).length).toBeGreaterThan(4_500_000);
    const reply = await api('/api/onboarding-v2', { body, headers: SERVICE_KEY });
    expect(reply.status, reply.text.slice(0, 300)).toBe(413);
    expect(errorCode(reply)).toBe('payload_too_large');
  });

  it('refuses an oversized body on an anonymous route too, before anything else', async () => {
    const reply = await api('/api/auth/login', { raw: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(400_000) }), headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(413);
    expect(errorCode(reply)).toBe('payload_too_large');
  });
});

describe('onboarding rate limits', () => {
  it('meets a 429 with Retry-After within 15 quick submissions by one user', { timeout: 120_000 }, async () => {
    const company = `Quick ${uniqueToken()}`;
    const user = await signedInUser({ companyName: company });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 15; i++) {
      const reply = await user.client.post('/api/onboarding-v2', { email: user.email, companyName: company, phone: `+1 555 01${String(i).padStart(2, '0')}` }, bearer(user.accessToken));
      statuses.push(reply.status);
      if (reply.status === 429) {
        expect(errorCode(reply)).toBe('rate_limited');
        retryAfter = reply.headers.get('retry-after');
        break;
      }
    }
    expect(statuses, statuses.join(',')).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});

describe('/status', () => {
  it('tells an anonymous caller the overall status only', async () => {
    const reply = await api('/status');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['checkedAt', 'status']);
    expect(['ok', 'degraded', 'down']).toContain(reply.body.status);
  });

  it('details each integration for the admin key', async () => {
    const reply = await api('/status', { headers: ADMIN_KEY });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations.resend).toMatchObject({ configured: true, reachable: true });
    expect(reply.body.dependencies.dynamodb).toMatchObject({ reachable: true });
  });

  it('details each integration for an admin user, and not for an ordinary one', async () => {
    const user = await signedInUser();
    const plain = await api('/status', { headers: bearer(user.accessToken) });
    expect(plain.status).toBe(200);
    expect(plain.body.integrations).toBeUndefined();
    const promoted = await fetch(`${stack().env.SUPABASE_URL}/auth/v1/admin/users/${user.user.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stack().env.SUPABASE_SERVICE_ROLE_KEY}`, apikey: stack().env.SUPABASE_SERVICE_ROLE_KEY!, 'content-type': 'application/json' },
      body: JSON.stringify({ app_metadata: { role: 'admin' } }),
    });
    expect(promoted.status).toBe(200);
    const admin = await api('/status', { headers: bearer(user.accessToken) });
    expect(admin.status).toBe(200);
    expect(admin.body.integrations.identity).toMatchObject({ reachable: true });
  });

  it('refuses a wrong admin key rather than answering as to a stranger', async () => {
    const reply = await api('/status', { headers: { 'x-admin-key': 'wrong' } });
    expect(reply.status).toBe(401);
    expect(errorCode(reply)).toBe('unauthenticated');
  });

  // docs/api.md: "A key or token that is sent and wrong is 401"; a malformed Authorization was taken as none (200).
  it('refuses an Authorization header that is sent but is no bearer token', async () => {
    for (const authorization of ['Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'bearer', `Bearer ${'a'.repeat(9000)}`, 'Bearer a b']) {
      const reply = await api('/status', { headers: { authorization } });
      expect([reply.status, errorCode(reply)], authorization.slice(0, 20)).toEqual([401, 'unauthenticated']);
    }
  });

  it('probes each vendor at most once for 20 calls', { timeout: 60_000 }, async () => {
    const since = Date.now();
    for (let i = 0; i < 20; i++) expect((await api('/status', { headers: i % 2 ? ADMIN_KEY : {} })).status).toBe(200);
    const log = (await (await fetch(`${stack().urls.emulators}/_local/requests`)).json()) as { vendor: string; method: string; path: string; at: number }[];
    // The probes: an unauthenticated GET of each vendor's base address (Supabase's health endpoint).
    const probes = log.filter(
      (r) => r.at >= since && r.method === 'GET' && (r.vendor === 'slack' || /^\/(auth\/v1\/health|v1|resend|clickup\/api\/v2|dropbox\/api|close\/api\/v1|firecrawl)$/.test(r.path)),
    );
    const perVendor = new Map<string, number>();
    for (const p of probes) perVendor.set(p.vendor, (perVendor.get(p.vendor) ?? 0) + 1);
    for (const [vendor, count] of perVendor) expect(count, vendor).toBeLessThanOrEqual(1);
  });
});
