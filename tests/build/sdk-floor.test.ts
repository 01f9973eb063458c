// The bench's fixed-SDK floor makes a function's Supabase Auth requests through
// supabase-js's own calls (bench/fixtures/sdk-floor/supabase-calls.ts). It is
// a fair floor only if each call sends exactly the requests the function
// sent: this records what our identity adapter sends for each of its
// operations (against the GoTrue emulator), then has the floor make them
// again, answered with the recorded answers, and compares.
import { afterEach, describe, expect, it } from 'vitest';
import type { CapturedRequest } from '../../bench/fixtures/same-io-handler.ts';
import { replayAll } from '../../bench/fixtures/sdk-floor/replay.ts';
import { supabaseService } from '../../bench/fixtures/sdk-floor/supabase.ts';
import type { IdentityProvider } from '../../lib/identity/identity.ts';
import { supabaseIdentity } from '../../lib/identity/supabase-identity.ts';
import { httpTransport, type HttpTransport, type TransportInit } from '../../lib/integrations/http-transport.ts';
import { supabaseVendorWith } from '../../local/emulators/supabase.ts';
import { quickPolicy, useEmulators } from '../support/emulators.ts';
import { identityUsers } from '../support/identity-users.ts';
import { newEmail } from '../support/users.ts';

const emu = useEmulators(supabaseVendorWith({}));
// The transport the adapter sends by: the real one, or, while `recorded` runs, one that also writes down each exchange.
let transport: HttpTransport = httpTransport;
const identity = (admin = true): IdentityProvider =>
  supabaseIdentity(
    { url: emu.env.SUPABASE_URL!, anonKey: emu.env.SUPABASE_ANON_KEY!, serviceRoleKey: admin ? emu.env.SUPABASE_SERVICE_ROLE_KEY! : undefined },
    quickPolicy,
    (input, init) => transport(input, init),
  );
const PASSWORD = 'Secret123';
const REDIRECT = 'http://localhost:3000/reset-password';
const { registered, confirmed, signedIn, recoveryToken } = identityUsers(identity, REDIRECT);

interface Exchange extends CapturedRequest {
  status: number;
  answer: string;
}

afterEach(() => {
  transport = httpTransport;
});

/** A request as the transport was asked to send it, with the answer it got. */
function exchange(input: string | URL, init: TransportInit | undefined, status: number, answer: string): Exchange {
  const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
  const body = typeof init?.body === 'string' ? init.body : '';
  return { via: 'http', method: (init?.method ?? 'GET').toUpperCase(), url: new URL(input).href, headers, body, status, answer };
}

/** The requests `work` has the adapter send, with their answers. */
async function recorded(work: () => Promise<unknown>): Promise<Exchange[]> {
  const log: Exchange[] = [];
  transport = async (input, init) => {
    const res = await httpTransport(input, init);
    log.push(exchange(input, init, res.status, await res.text()));
    return res;
  };
  try {
    await work();
  } finally {
    transport = httpTransport;
  }
  return log;
}

/**
 * What the floor sends making the same requests, each answered as it was
 * answered then (or as `answers` says). By default a request the floor would
 * send bare (no supabase-js call for it) fails the test.
 */
async function replayed(log: Exchange[], options: { answers?: (i: number) => { status: number; answer: string } | undefined; bare?: boolean } = {}): Promise<Exchange[]> {
  const made: Exchange[] = [];
  const answering: HttpTransport = async (input, init) => {
    const then = options.answers?.(made.length) ?? log[made.length];
    made.push(exchange(input, init, then?.status ?? 0, then?.answer ?? ''));
    const status = then?.status ?? 599;
    const text = then?.answer ?? '';
    return { status, statusText: '', ok: status >= 200 && status < 300, url: String(input), redirected: false, headers: { get: (n) => (n.toLowerCase() === 'content-type' ? 'application/json' : null), has: (n) => n.toLowerCase() === 'content-type' }, text: async () => text, json: async () => JSON.parse(text) };
  };
  const bare = async (r: CapturedRequest) => {
    if (!options.bare) throw new Error(`The floor has no supabase-js call for ${r.method} ${r.url}`);
    await answering(r.url, { method: r.method, headers: r.headers, body: r.body || undefined });
  };
  await replayAll(log, [supabaseService(emu.env.SUPABASE_URL!, emu.env.SUPABASE_ANON_KEY!, answering)], bare);
  return made;
}

/** What must match: the request line, the keys and token it carries, its JSON body. */
const shape = (e: Exchange) => ({ request: `${e.method} ${e.url}`, apikey: e.headers.apikey, authorization: e.headers.authorization, body: e.body ? JSON.parse(e.body) : undefined });

/** A password change in a recovery session, then the end of its sessions: what reset-password asks of the provider. */
async function resetInRecoverySession(token: string) {
  const session = await identity().openRecoverySession(token);
  await session!.updatePassword('Another456');
  await identity().endSessions(token);
}

describe("the fixed-SDK floor's Supabase calls send what the identity adapter sends", () => {
  const operations: [string, () => Promise<() => Promise<unknown>>][] = [
    ['signs in with a password (login)', async () => {
      const { email } = await confirmed(PASSWORD);
      return () => identity().signIn(email, PASSWORD);
    }],
    ['reads the user of an access token (every signed-in request)', async () => {
      const { accessToken } = await signedIn(PASSWORD);
      return () => identity().userForAccessToken(accessToken);
    }],
    ['ends the sessions of a user (logout)', async () => {
      const { accessToken } = await signedIn(PASSWORD);
      return () => identity().endSessions(accessToken);
    }],
    ['creates a user with the admin API (signup)', async () => () => identity().register({ email: newEmail(), password: PASSWORD, metadata: { companyName: 'Acme' } })],
    ['signs up a user without the admin key', async () => () => identity(false).register({ email: newEmail(), password: PASSWORD, metadata: {} })],
    ['confirms an address (verify-email)', async () => {
      const { user } = await registered();
      return () => identity().confirmEmail(user.id);
    }],
    ['deletes a user (a signup undone)', async () => {
      const { user } = await registered();
      return () => identity().deleteUser(user.id);
    }],
    ['makes a recovery link (forgot-password)', async () => {
      const { email } = await registered();
      return () => identity().createRecoveryLink(email, REDIRECT);
    }],
    ['sends a recovery e-mail without the admin key', async () => {
      const { email } = await registered();
      return () => identity(false).sendRecoveryEmail(email, REDIRECT);
    }],
    ['changes the password in a recovery session, then ends its sessions (reset-password)', async () => {
      const { email } = await signedIn(PASSWORD);
      const token = await recoveryToken(email);
      return () => resetInRecoverySession(token);
    }],
    ['sets a password as admin', async () => {
      const { user } = await registered();
      return () => identity().setPasswordAsAdmin(user.id, 'Another456');
    }],
  ];

  for (const [what, prepare] of operations) {
    it(what, async () => {
      const log = await recorded(await prepare());
      expect(log.length).toBeGreaterThan(0);
      expect(log.filter((e) => e.status >= 400).map((e) => `${e.method} ${e.url} ${e.status}`)).toEqual([]);
      expect((await replayed(log)).map(shape)).toEqual(log.map(shape));
    });
  }

  // In the bench the floor replays requests captured once: by then the capture run's own logout has ended the
  // recovery session, so setSession is refused and updateUser sends nothing. The floor still makes every round trip.
  it('still makes every captured request when a call stops short (a recovery session already ended)', async () => {
    const { email } = await signedIn(PASSWORD);
    const token = await recoveryToken(email);
    const log = await recorded(() => resetInRecoverySession(token));
    expect(log.map((e) => `${e.method} ${new URL(e.url).pathname}`)).toEqual(['GET /auth/v1/user', 'PUT /auth/v1/user', 'POST /auth/v1/logout']);
    const ended = { status: 403, answer: JSON.stringify({ code: 403, error_code: 'session_not_found', msg: 'Session from session_id claim in JWT does not exist' }) };
    const made = await replayed(log, { answers: () => ended, bare: true });
    expect(made.map(shape)).toEqual(log.map(shape));
  });
});
