// Many clients at once against vendors that enforce their published limits
// (this project's stack: Resend 5/s, Slack 1/s per webhook, Close 20/s, and
// ClickUp's 100 per token in a window of 12 s instead of a minute): every run
// finishes on its own, nothing is duplicated or missing, and the pacing keeps
// the vendors' 429s to a few.
import { describe, expect, it } from 'vitest';
import { api, stack, type Reply } from '../support/http.ts';
import { expectProvisionedOnce, SERVICE_KEY, uniqueToken, vendorRequests } from '../support/onboarding.ts';

const VENDORS = ['clickup', 'dropbox', 'resend', 'slack', 'close'] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls each running run's view every two seconds until all have ended; every distinct "waiting" line seen is kept. */
async function followAll(replies: Reply[], waitingSeen: Set<string>, deadlineMs: number): Promise<Reply[]> {
  const current = [...replies];
  while (current.some((r) => r.status === 202)) {
    if (Date.now() > deadlineMs) throw new Error(`${current.filter((r) => r.status === 202).length} runs still running`);
    await sleep(2000);
    await Promise.all(
      current.map(async (reply, i) => {
        if (reply.status !== 202) return;
        current[i] = await api(new URL(reply.body.statusUrl).pathname, { headers: SERVICE_KEY });
        for (const state of Object.values<string>(current[i]!.body?.integrations ?? {})) if (state.startsWith('waiting')) waitingSeen.add(state);
      }),
    );
  }
  return current;
}

describe('fifty onboardings submitted at once', () => {
  it('all end with every integration succeeded, no operator action, nothing duplicated or missing, and 429s under 5% of the calls', async () => {
    const t = uniqueToken();
    const since = Date.now();
    const companies = Array.from({ length: 50 }, (_, i) => ({ name: `Burst ${i} ${t}`, email: `burst-${i}-${t}@example.com` }));
    const submitted = await Promise.all(companies.map((c) => api('/api/onboarding-v2', { body: { email: c.email, companyName: c.name }, headers: SERVICE_KEY })));
    expect(submitted.map((r) => r.status).filter((s) => s !== 200 && s !== 202)).toEqual([]);

    const waitingSeen = new Set<string>();
    const finals = await followAll(submitted, waitingSeen, Date.now() + 540_000);
    for (const [i, reply] of finals.entries()) {
      expect(reply.status, `${companies[i]!.name}: ${reply.text.slice(0, 600)}`).toBe(200);
      expect(reply.body).toMatchObject({ success: true, integrations: { clickup: 'success', dropbox: 'success', resend: 'success', slack: 'success', close: 'success' } });
    }
    // While the vendors set the pace, a run's view said which and until when.
    expect([...waitingSeen].some((s) => /^waiting for clickup until \d{4}-\d\d-\d\dT/.test(s)), [...waitingSeen].join('; ')).toBe(true);

    // Each company's records, exactly once at every vendor (Slack included: nothing was lost or repeated here).
    for (const [i, reply] of finals.entries()) await expectProvisionedOnce(companies[i]!.name, reply.body.portalSlug, companies[i]!.email);

    // The vendors' own count of what they refused.
    const calls = Object.fromEntries(await Promise.all(VENDORS.map(async (v) => [v, await vendorRequests(v, since)] as const)));
    const total = VENDORS.reduce((n, v) => n + calls[v]!.length, 0);
    const refused = VENDORS.reduce((n, v) => n + calls[v]!.filter((r) => r.status === 429).length, 0);
    expect(refused, JSON.stringify(Object.fromEntries(VENDORS.map((v) => [v, `${calls[v]!.filter((r) => r.status === 429).length}/${calls[v]!.length}`])))).toBeLessThanOrEqual(0.05 * total);
    // A new client's project is fifteen ClickUp calls (a folder, three lists, eleven tasks, no reads); a call that met a
    // 429 is sent again, and the lists it ran beside may be looked up by name once.
    const clickupRefused = calls.clickup!.filter((r) => r.status === 429).length;
    const clickupDone = calls.clickup!.length - clickupRefused;
    expect(clickupDone).toBeGreaterThanOrEqual(50 * 15);
    expect(clickupDone).toBeLessThanOrEqual(50 * 15 + 3 * clickupRefused);
    expect(stack().env.CLICKUP_RATE_LIMIT).toBe('100/12');
  });
});
