// Load, bounded in count and time, against the running stack: hundreds of
// concurrent requests, then the invariants that must hold afterwards. Speed
// is measured by the bench (npm run bench), never asserted here.
import { describe, expect, it } from 'vitest';
import { api, randomLoopbackIp, recorded, type Reply } from '../support/http.ts';
import { followRun, SERVICE_KEY, uniqueToken } from '../support/onboarding.ts';
import { newEmail, PASSWORD, verificationToken } from '../support/users.ts';

const statuses = (replies: Reply[]) => replies.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
const noServerErrors = (replies: Reply[]) => expect(replies.filter((r) => r.status >= 500).map((r) => r.text.slice(0, 200))).toEqual([]);

describe('load', () => {
  it('two hundred concurrent signups from as many clients all succeed', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, () => api('/api/auth/signup', { body: { email: newEmail(), password: PASSWORD }, fromIp: randomLoopbackIp() })),
    );
    noServerErrors(replies);
    expect(statuses(replies)).toEqual({ 201: 200 });
  });

  it('holds the signup limit exactly when one client sends a hundred at once', async () => {
    const ip = randomLoopbackIp();
    const replies = await Promise.all(Array.from({ length: 100 }, () => api('/api/auth/signup', { body: { email: newEmail(), password: PASSWORD }, fromIp: ip })));
    noServerErrors(replies);
    expect(statuses(replies)).toEqual({ 201: 5, 429: 95 });
    for (const r of replies.filter((r) => r.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('logs in a hundred users concurrently, and holds the login limit exactly for one client', async () => {
    const users = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const email = newEmail();
        const ip = randomLoopbackIp();
        expect((await api('/api/auth/signup', { body: { email, password: PASSWORD }, fromIp: ip })).status).toBe(201);
        expect((await api('/api/verify-email', { body: { token: await verificationToken(email) }, fromIp: ip })).status).toBe(200);
        return email;
      }),
    );
    const logins = await Promise.all(
      [...users, ...users].map((email) => api('/api/auth/login', { body: { email, password: PASSWORD }, fromIp: randomLoopbackIp() })),
    );
    noServerErrors(logins);
    expect(statuses(logins)).toEqual({ 200: 100 });
    for (const r of logins) expect(r.body.session.access_token).toEqual(expect.any(String));

    const ip = randomLoopbackIp();
    const guesses = await Promise.all(
      Array.from({ length: 40 }, () => api('/api/auth/login', { body: { email: users[0], password: 'Wrong1234' }, fromIp: ip })),
    );
    noServerErrors(guesses);
    expect(statuses(guesses)).toEqual({ 401: 10, 429: 30 });
  });

  it('onboards two hundred companies at once: all complete, every slug unique', async () => {
    const t = uniqueToken();
    // Some share a name, so slugs are contended as well.
    const companies = Array.from({ length: 200 }, (_, i) => ({ name: i % 4 === 0 ? `Load Shared ${t}` : `Load ${i} ${t}`, email: `load-${i}-${t}@example.com` }));
    const replies = await Promise.all(
      companies.map((c) => api('/api/onboarding-v2', { body: { email: c.email, companyName: c.name }, headers: SERVICE_KEY }).then(followRun)),
    );
    noServerErrors(replies);
    expect(statuses(replies)).toEqual({ 200: 200 });
    const slugs = replies.map((r) => r.body.portalSlug as string);
    expect(new Set(slugs).size).toBe(200);

    // Every onboarding's records are complete, and nothing is duplicated.
    const [folders, storage, chat, crm] = await Promise.all([recorded('tasks'), recorded('storage'), recorded('chat'), recorded('crm')]);
    for (const [i, slug] of slugs.entries()) {
      const name = companies[i]!.name;
      expect(folders.filter((f: { name: string }) => f.name === `${name} (${slug})`), slug).toHaveLength(1);
      expect(storage.filter((e: { path: string; type: string }) => e.path.startsWith(`/Clients/${slug}/`) && e.type === 'folder'), slug).toHaveLength(10);
    }
    expect(crm.filter((l: { name: string }) => l.name.endsWith(t))).toHaveLength(200);
    // Slack posts are at-least-once (no idempotency key): every company got its notice; a slow answer may repeat one.
    const notices = chat.filter((m: { text: string }) => m.text.includes(t) && m.text.startsWith('New client onboarded'));
    for (const c of new Set(companies.map((c) => c.name))) expect(notices.some((m: { text: string }) => m.text.includes(`${c}\n`)), c).toBe(true);
    expect(notices.length).toBeGreaterThanOrEqual(200);
  });
});
