// Every emulator refuses, in its vendor's own error shape, what the vendor's
// published API does not declare for the operations we call: a body field
// (nested ones too), a query parameter, an operation. So an adapter that
// drifts from the vendor's API fails against the emulator, as it would
// (or, silently, would not work) against the vendor.
import { describe, expect, it } from 'vitest';
import { undeclaredIn } from '../../../local/emulators/declared.ts';
import { localVendors } from '../../../local/emulators/index.ts';
import { useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(...localVendors);
const env = (name: string) => emu.env[name]!;

async function call(path: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; form?: string } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = init.form;
  }
  const res = await fetch(`${emu.url}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a plain-text answer
  }
  return { status: res.status, body: parsed };
}

async function dropboxToken() {
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: env('DROPBOX_REFRESH_TOKEN'), client_id: env('DROPBOX_APP_KEY'), client_secret: env('DROPBOX_APP_SECRET') });
  return ((await call('/dropbox/api/oauth2/token', { form: form.toString() })).body as { access_token: string }).access_token;
}

const CLICKUP = () => ({ authorization: env('CLICKUP_API_TOKEN') });
const CLOSE = () => ({ authorization: `Basic ${Buffer.from(`${env('CLOSE_API_KEY')}:`).toString('base64')}` });
const STRIPE = () => ({ authorization: `Bearer ${env('STRIPE_SECRET_KEY')}` });
const RESEND = () => ({ authorization: `Bearer ${env('RESEND_API_KEY')}` });
const SUPABASE = () => ({ apikey: env('SUPABASE_ANON_KEY'), 'x-supabase-api-version': '2024-01-01' });
const FIRECRAWL = { authorization: 'Bearer fc-local-firecrawl-key' };
const slackWebhook = () => new URL(env('SLACK_WEBHOOK_URL')).pathname;

describe('an undeclared field is refused in the vendor\'s own shape', () => {
  it('ClickUp: 400 {err, ECODE}', async () => {
    expect(await call(`/clickup/api/v2/list/1/task`, { headers: CLICKUP(), json: { name: 'x', markdown_description: 'y' } })).toEqual({
      status: 400,
      body: { err: 'Undeclared field markdown_description', ECODE: 'LOCAL_UNDECLARED' },
    });
    expect(await call(`/clickup/api/v2/space/${env('CLICKUP_SPACE_ID')}/folder?archived=false&include_everything=true`, { headers: CLICKUP() })).toMatchObject({
      status: 400,
      body: { ECODE: 'LOCAL_UNDECLARED' },
    });
    expect(await call('/clickup/api/v2/team', { headers: CLICKUP() })).toMatchObject({ status: 404, body: { err: 'Route not found' } });
  });

  it('Dropbox: 400 plain text naming the route and the field, in the body or in Dropbox-API-Arg', async () => {
    const authorization = `Bearer ${await dropboxToken()}`;
    expect(await call('/dropbox/api/2/sharing/create_shared_link_with_settings', { headers: { authorization }, json: { path: '/a', settings: { visibility: 'public' } } })).toEqual({
      status: 400,
      body: 'Error in call to API function "sharing/create_shared_link_with_settings": request body: unknown field \'settings.visibility\'',
    });
    expect(
      await call('/dropbox/content/2/files/upload', {
        headers: { authorization, 'content-type': 'application/octet-stream', 'dropbox-api-arg': JSON.stringify({ path: '/a.csv', overwrite: true }) },
        method: 'POST',
      }),
    ).toEqual({ status: 400, body: 'Error in call to API function "files/upload": HTTP header "Dropbox-API-Arg": unknown field \'overwrite\'' });
    expect(await call('/dropbox/api/2/files/create_folder_v2', { headers: { authorization }, json: { path: '/a' } })).toEqual({
      status: 404,
      body: 'Unknown API function: "files/create_folder_v2"',
    });
  });

  it('Resend: 422 {statusCode, name, message}', async () => {
    const res = await call('/resend/emails', { headers: RESEND(), json: { from: 'a@agency.local', to: 'b@example.com', subject: 's', text: 't', replyTo: 'c@example.com' } });
    expect(res).toEqual({ status: 422, body: { statusCode: 422, name: 'validation_error', message: '`replyTo` is not a parameter of this endpoint.' } });
  });

  it('Slack: 400 invalid_payload for a webhook, ok:false invalid_arguments for the Web API', async () => {
    expect(await call(slackWebhook(), { json: { text: 'hi', channel: '#general' } })).toEqual({ status: 400, body: 'invalid_payload' });
    expect(await call('/slack/api/chat.postMessage', { headers: { authorization: 'Bearer xoxb-local-bot-token' }, json: { channel: 'C000ONBOARD', text: 'hi', markdown: true } })).toEqual({
      status: 200,
      body: { ok: false, error: 'invalid_arguments' },
    });
  });

  it('Stripe: 400 parameter_unknown naming the form key, also nested', async () => {
    const form = 'mode=subscription&line_items[0][price]=price_local_pro&line_items[0][quantity]=1&line_items[0][plan]=pro';
    const res = await call('/v1/checkout/sessions', { headers: STRIPE(), form });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'parameter_unknown', param: 'line_items[0][plan]', message: 'Received unknown parameter: line_items[0][plan]' } });
    expect((await call('/v1/customers/cus_x?include=all', { headers: STRIPE() })).body).toMatchObject({ error: { code: 'parameter_unknown', param: 'include' } });
  });

  it('Firecrawl: 400 unrecognized_keys with the path of the key', async () => {
    const res = await call('/firecrawl/v2/crawl', { headers: FIRECRAWL, json: { url: 'https://example.com', scrapeOptions: { formats: ['html'], maxDepth: 2 } } });
    expect(res).toEqual({
      status: 400,
      body: {
        success: false,
        error: 'Bad Request',
        details: [{ code: 'unrecognized_keys', keys: ['maxDepth'], path: ['scrapeOptions'], message: 'Unrecognized key in body -- please review the v2 API documentation for request body changes' }],
      },
    });
  });

  it("PageSpeed: Google's 400 INVALID_ARGUMENT for an unknown query parameter", async () => {
    const res = await call('/pagespeed/pagespeedonline/v5/runPagespeed?url=https%3A%2F%2Fexample.com&key=local-pagespeed-key&device=mobile');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('Unknown name "device"') } });
  });

  it('Supabase: 400 validation_failed, in the shape the API version asks for', async () => {
    const res = await call('/auth/v1/signup', { headers: SUPABASE(), json: { email: 'x@example.com', password: 'Secret123', user_metadata: {} } });
    expect(res).toEqual({ status: 400, body: { code: 'validation_failed', message: 'Undeclared field user_metadata' } });
  });

  it('Close: 400 field-errors', async () => {
    const res = await call('/close/api/v1/lead/', { headers: CLOSE(), json: { name: 'x', website: 'https://x.example' } });
    expect(res).toEqual({ status: 400, body: { errors: [], 'field-errors': { website: 'Unknown field.' } } });
  });

  it('every emulator says where it differs from its vendor', async () => {
    const page = await (await fetch(emu.url)).text();
    for (const vendor of ['clickup', 'dropbox', 'resend', 'slack', 'close', 'supabase', 'stripe', 'firecrawl', 'pagespeed']) {
      expect(page, vendor).toMatch(new RegExp(`<li><b>${vendor}</b> <span class="muted">[^<]*</span><details><summary>Differs from the real vendor</summary><ul><li>`));
    }
  });
});

describe('what a shape declares', () => {
  const shape = { name: 'any', settings: { audience: 'any' }, items: [{ price: 'any' }], 'custom.*': 'any' } as const;

  it('finds the first undeclared key at any depth, arrays included, and takes prefix keys', () => {
    expect(undeclaredIn({ name: 1, settings: { audience: 'x' }, items: [{ price: 'p' }], 'custom.cf_1': 2 }, shape, [])).toBeUndefined();
    expect(undeclaredIn({ nme: 1 }, shape, [])).toEqual(['nme']);
    expect(undeclaredIn({ settings: { audience: 'x', access: 'y' } }, shape, [])).toEqual(['settings', 'access']);
    expect(undeclaredIn({ items: [{ price: 'p' }, { price: 'q', qty: 1 }] }, shape, [])).toEqual(['items', 1, 'qty']);
  });

  it("does not look into 'any', or into values of another type than the shape's", () => {
    expect(undeclaredIn({ name: { deep: { anything: true } } }, shape, [])).toBeUndefined();
    expect(undeclaredIn({ settings: 'not an object', items: 'nor an array' }, shape, [])).toBeUndefined();
  });
});
