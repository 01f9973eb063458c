// The seven auth Lambdas in-process, wired from configuration exactly as on
// AWS, against dynalite and the Resend and GoTrue emulators, with every log
// line captured: no password, token or key may appear in a log line or in an
// error body, whatever the outcome.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resendVendor } from '../../../local/emulators/resend.ts';
import { supabaseVendor } from '../../../local/emulators/supabase.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { useEmulators } from '../../support/emulators.ts';
import { httpEvent, lambdaContext } from '../../support/events.ts';

const d = useDynamo();
const emu = useEmulators(resendVendor, supabaseVendor);

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;
const handlers: Record<string, Handler> = {};
const logs: string[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  Object.assign(process.env, emu.env, {
    AWS_ENDPOINT_URL_DYNAMODB: d.endpoint,
    LOG_LEVEL: 'debug',
    VENDOR_MAX_ATTEMPTS: '2',
    VENDOR_TIMEOUT_MS: '2000',
  });
  // Fresh modules, so configuration is read from the settings above.
  vi.resetModules();
  for (const name of ['signup', 'login', 'logout', 'me', 'forgot-password', 'reset-password', 'verify-email']) {
    handlers[name] = (await import(`../../../functions/auth/${name}.ts`)).handler as Handler;
  }
  // Kept, not printed: the log lines are what this test reads.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      logs.push(String(chunk));
      return true;
    }) as typeof stream.write);
  }
});

afterAll(() => {
  vi.restoreAllMocks();
  process.env = saved;
});

const paths: Record<string, [string, string]> = {
  signup: ['POST', '/api/auth/signup'],
  login: ['POST', '/api/auth/login'],
  logout: ['POST', '/api/auth/logout'],
  me: ['GET', '/api/auth/me'],
  'forgot-password': ['POST', '/api/auth/forgot-password'],
  'reset-password': ['POST', '/api/auth/reset-password'],
  'verify-email': ['POST', '/api/verify-email'],
};

async function call(name: string, body?: unknown, headers: Record<string, string> = {}) {
  const [method, path] = paths[name]!;
  const result = await handlers[name]!(
    httpEvent({
      method,
      path,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      sourceIp: `203.0.113.${1 + Math.floor(Math.random() * 250)}`,
    }),
    lambdaContext(),
  );
  return { status: result.statusCode!, text: String(result.body ?? ''), body: result.body ? JSON.parse(String(result.body)) : undefined };
}

describe('the auth Lambdas', () => {
  it('never log or answer a password, token or key', async () => {
    const email = `${crypto.randomUUID()}@example.com`;
    const secrets: string[] = ['Secret123', 'NewSecret456', 'Wrong1234x', emu.env.SUPABASE_ANON_KEY!, emu.env.SUPABASE_SERVICE_ROLE_KEY!, emu.env.RESEND_API_KEY!];
    const errorBodies: string[] = [];
    const track = async (reply: Promise<{ status: number; text: string; body: any }>) => {
      const r = await reply;
      if (r.status >= 400) errorBodies.push(r.text);
      return r;
    };

    expect((await track(call('signup', { email, password: 'Secret123', metadata: { companyName: 'Quiet Logs' } }))).status).toBe(201);
    expect((await track(call('signup', { email: 'x@example.com', password: 'weak' }))).status).toBe(400);
    const [mail] = (await emu.get<{ to: string[]; text: string }[]>('emails')).filter((m) => m.to.includes(email));
    const verificationToken = /verify\?token=([A-Za-z0-9_-]+)/.exec(mail!.text)![1]!;
    secrets.push(verificationToken);

    expect((await track(call('verify-email', { token: verificationToken }))).status).toBe(200);
    expect((await track(call('verify-email', { token: verificationToken }))).status).toBe(400);
    expect((await track(call('login', { email, password: 'Wrong1234x' }))).status).toBe(401);
    const login = await track(call('login', { email, password: 'Secret123' }));
    expect(login.status).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = login.body.session;
    secrets.push(accessToken, refreshToken);
    expect((await track(call('me', undefined, { authorization: `Bearer ${accessToken}` }))).status).toBe(200);

    expect((await track(call('forgot-password', { email }))).status).toBe(200);
    const [reset] = (await emu.get<{ to: string[]; subject: string; text: string }[]>('emails')).filter(
      (m) => m.to.includes(email) && m.subject === 'Reset your password',
    );
    const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(reset!.text)![0];
    const recoveryToken = new URLSearchParams(new URL((await fetch(link, { redirect: 'manual' })).headers.get('location')!).hash.slice(1)).get('access_token')!;
    secrets.push(recoveryToken, new URL(link).searchParams.get('token')!);
    expect((await track(call('reset-password', { token: recoveryToken, password: 'weak' }))).status).toBe(400);
    expect((await track(call('reset-password', { token: recoveryToken, password: 'NewSecret456' }))).status).toBe(200);
    expect((await track(call('reset-password', { token: recoveryToken, password: 'NewSecret456' }))).status).toBe(400);
    expect((await track(call('logout', undefined, { authorization: `Bearer ${accessToken}` }))).status).toBe(401);

    // A failing provider and a failing mailer are logged as errors: still nothing secret.
    await emu.fault({ vendor: 'supabase', mode: 'fail', count: 2, match: email });
    expect((await track(call('login', { email, password: 'NewSecret456' }))).status).toBe(500);
    await emu.fault({ vendor: 'resend', mode: 'fail', count: 2, match: email });
    expect((await track(call('forgot-password', { email }))).status).toBe(500);

    const logged = logs.join('');
    expect(logged).toContain('"message":"request"');
    expect(logged).toContain('"level":"error"');
    expect(errorBodies).toHaveLength(8);
    for (const secret of secrets) {
      expect(logged, `log mentions ${secret.slice(0, 12)}…`).not.toContain(secret);
      for (const body of errorBodies) expect(body, `an error body mentions ${secret.slice(0, 12)}…`).not.toContain(secret);
    }
  });
});
