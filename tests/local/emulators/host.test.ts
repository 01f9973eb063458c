import { Hono } from 'hono';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulatorHost, type EmulatorHost, type VendorEmulator } from '../../../local/emulators/host.ts';

/** A minimal vendor: records notes, fails and throttles in its own way. */
function notesVendor(): VendorEmulator {
  let notes: string[] = [];
  const app = new Hono();
  app.post('/notes/api/add', async (c) => {
    const { text } = await c.req.json();
    notes.push(text);
    return c.json({ ok: true });
  });
  return {
    vendor: 'notes',
    prefixes: ['/notes'],
    app,
    records: { notes: () => notes },
    failure: (c) => c.json({ err: 'boom' }, 503),
    throttle: (c, s) => c.json({ err: 'slow' }, 429, { 'x-notes-retry': String(s) }),
    rateLimit: {
      setting: 'NOTES_RATE_LIMIT',
      published: { limit: 3, windowSeconds: 1 },
      subject: (c) => c.req.header('x-notes-key'),
      headers: ({ remaining }) => ({ 'x-notes-remaining': String(remaining) }),
    },
    reset: () => (notes = []),
    dump: () => notes,
    load: (state) => (notes = state as string[]),
  };
}

const hosts: EmulatorHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function host(stateFile?: string) {
  const h = await startEmulatorHost({ port: 0, stateFile });
  h.register(notesVendor());
  hosts.push(h);
  return h;
}
const add = (h: EmulatorHost, text: string, signal?: AbortSignal, key?: string) =>
  fetch(`${h.url}/notes/api/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-notes-key': key } : {}) },
    body: JSON.stringify({ text }),
    signal,
  });
const fault = (h: EmulatorHost, body: object) =>
  fetch(`${h.url}/_local/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the emulator host', () => {
  it('records what a vendor was asked and serves it at /_local/<kind>', async () => {
    const h = await host();
    await add(h, 'one');
    await add(h, 'two');
    expect(await (await fetch(`${h.url}/_local/notes`)).json()).toEqual(['one', 'two']);
    expect((await fetch(`${h.url}/_local/nothing`)).status).toBe(404);
    expect(await (await fetch(`${h.url}/`)).text()).toContain('notes');
  });

  it('fails, then throttles with the vendor header, for exactly the count asked', async () => {
    const h = await host();
    expect((await fault(h, { vendor: 'notes', mode: 'fail', count: 2 })).status).toBe(201);
    expect((await add(h, 'a')).status).toBe(503);
    expect((await add(h, 'b')).status).toBe(503);
    expect((await add(h, 'c')).status).toBe(200);
    await fault(h, { vendor: 'notes', mode: 'throttle', retryAfterSeconds: 7 });
    const throttled = await add(h, 'd');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('x-notes-retry')).toBe('7');
    expect(await (await fetch(`${h.url}/_local/notes`)).json()).toEqual(['c']);
  });

  it('aims a fault at matching calls only', async () => {
    const h = await host();
    await fault(h, { vendor: 'notes', mode: 'fail', count: 5, match: 'acme' });
    expect((await add(h, 'globex')).status).toBe(200);
    expect((await add(h, 'acme-1')).status).toBe(503);
    const faults = (await (await fetch(`${h.url}/_local/faults`)).json()) as { remaining: number }[];
    expect(faults[0]!.remaining).toBe(4);
  });

  it('hangs until the caller gives up', async () => {
    const h = await host();
    await fault(h, { vendor: 'notes', mode: 'hang' });
    // Only the caller's own timeout ends the call: no answer ever came.
    await expect(add(h, 'x', AbortSignal.timeout(300))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await add(h, 'after')).status).toBe(200);
  });

  it("enforces the vendor's published limit per subject, in windows, with its own 429 and headers; a test may change it", async () => {
    const h = await host();
    const statuses = async (key: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await add(h, `${key}-${i}`, undefined, key)).status);
      return out;
    };
    const first = await add(h, 'a0', undefined, 'a');
    expect(first.headers.get('x-notes-remaining')).toBe('2');
    expect(await statuses('a', 3)).toEqual([200, 200, 429]);
    // Another key has a window of its own; a call with no key is not counted.
    expect(await statuses('b', 3)).toEqual([200, 200, 200]);
    expect((await add(h, 'anonymous')).status).toBe(200);
    const refused = await add(h, 'a-late', undefined, 'a');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('x-notes-retry'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('x-notes-retry'))).toBeLessThanOrEqual(1);
    expect(refused.headers.get('x-notes-remaining')).toBe('0');
    const logged = (await (await fetch(`${h.url}/_local/requests?vendor=notes&match=a-late`)).json()) as { fault?: string; status?: number }[];
    expect(logged).toEqual([expect.objectContaining({ fault: 'rate-limit', status: 429 })]);

    const set = await fetch(`${h.url}/_local/limits`, { method: 'POST', body: JSON.stringify({ vendor: 'notes', limit: 10, windowSeconds: 60 }) });
    expect(await set.json()).toEqual({ vendor: 'notes', enforced: { limit: 10, windowSeconds: 60 } });
    expect(await statuses('a', 10)).toEqual([...Array(10).fill(200)]);
    expect((await add(h, 'a-11', undefined, 'a')).status).toBe(429);
    await fetch(`${h.url}/_local/limits`, { method: 'POST', body: JSON.stringify({ vendor: 'notes', limit: null }) });
    expect(await statuses('a', 5)).toEqual([...Array(5).fill(200)]);
    expect((await fetch(`${h.url}/_local/limits`, { method: 'POST', body: JSON.stringify({ vendor: 'notes', limit: 0 }) })).status).toBe(400);
    expect(await (await fetch(`${h.url}/_local/limits`)).json()).toMatchObject({ notes: { setting: 'NOTES_RATE_LIMIT', published: { limit: 3, windowSeconds: 1 }, enforced: null } });
  });

  it('enforces a vendor that allows short bursts as a token bucket: the burst at once, then the rate', async () => {
    const h = await startEmulatorHost({ port: 0 });
    hosts.push(h);
    const bursty = notesVendor();
    bursty.rateLimit = { ...bursty.rateLimit!, published: { limit: 2, windowSeconds: 1 }, burst: 3 };
    h.register(bursty);
    const statuses = async (n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await add(h, `b-${i}`, undefined, 'k')).status);
      return out;
    };
    expect(await statuses(4)).toEqual([200, 200, 200, 429]);
    // One token back every half second.
    await new Promise((r) => setTimeout(r, 600));
    expect(await statuses(2)).toEqual([200, 429]);
  });

  it('logs every vendor call with the fault it met', async () => {
    const h = await host();
    await fault(h, { vendor: 'notes', mode: 'fail', count: 1, match: 'second' });
    await add(h, 'first');
    await add(h, 'second');
    const log = (await (await fetch(`${h.url}/_local/requests?vendor=notes`)).json()) as { fault?: string; status?: number }[];
    expect(log.map((r) => [r.fault ?? null, r.status ?? null])).toEqual([
      [null, 200],
      ['fail', 503],
    ]);
    expect(await (await fetch(`${h.url}/_local/requests?match=second`)).json()).toHaveLength(1);
    await fetch(`${h.url}/_local/requests`, { method: 'DELETE' });
    expect(await (await fetch(`${h.url}/_local/requests`)).json()).toEqual([]);
  });

  it('refuses an unknown vendor or mode, and a count that is neither a whole number above 0 nor "always"', async () => {
    const h = await host();
    expect((await fault(h, { vendor: 'nobody', mode: 'fail' })).status).toBe(400);
    expect((await fault(h, { vendor: 'notes', mode: 'explode' })).status).toBe(400);
    for (const count of [0, -1, 1.5, '3', 'forever', true]) {
      const res = await fault(h, { vendor: 'notes', mode: 'fail', count });
      expect(res.status, `count ${JSON.stringify(count)}`).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_fault');
    }
    expect(await (await fetch(`${h.url}/_local/faults`)).json()).toEqual([]);
  });

  it('keeps a "count": "always" fault until the faults are cleared, and clearing them keeps the recordings', async () => {
    const h = await host();
    await add(h, 'before');
    const made = await fault(h, { vendor: 'notes', mode: 'fail', count: 'always' });
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ vendor: 'notes', mode: 'fail', remaining: 'always' });
    for (let i = 0; i < 25; i++) expect((await add(h, `during-${i}`)).status).toBe(503);
    expect(await (await fetch(`${h.url}/_local/faults`)).json()).toMatchObject([{ remaining: 'always' }]);

    expect((await fetch(`${h.url}/_local/faults`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await fetch(`${h.url}/_local/faults`)).json()).toEqual([]);
    expect((await add(h, 'after')).status).toBe(200);
    // Only the faults went: what the vendor recorded, and the request log, are still there.
    expect(await (await fetch(`${h.url}/_local/notes`)).json()).toEqual(['before', 'after']);
    expect(await (await fetch(`${h.url}/_local/requests?vendor=notes`)).json()).toHaveLength(27);
  });

  it('forgets everything on DELETE /_local, and keeps state across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emu-'));
    dirs.push(dir);
    const file = join(dir, 'state.json');
    const first = await host(file);
    await add(first, 'kept');
    await first.stop();
    hosts.splice(hosts.indexOf(first), 1);
    const second = await host(file);
    expect(await (await fetch(`${second.url}/_local/notes`)).json()).toEqual(['kept']);
    expect((await fetch(`${second.url}/_local`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await fetch(`${second.url}/_local/notes`)).json()).toEqual([]);
  });
});
