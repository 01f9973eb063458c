// Slack as our chat adapter calls it (vendor-contracts §4): an incoming
// webhook (plain-text "ok", plain-text errors) and chat.postMessage (HTTP 200
// with ok:false on logical failure). Throttles carry Retry-After.
import { Hono } from 'hono';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const SLACK_WEBHOOK_PATH = '/services/T000LOCAL/B000LOCAL/localWebhookToken';
export const SLACK_BOT_TOKEN = 'xoxb-local-bot-token';
export const SLACK_CHANNEL = 'C000ONBOARD';

interface Message {
  channel: string;
  text?: string;
  blocks?: unknown[];
  ts: string;
  via: 'incoming-webhook' | 'web-api';
  thread_ts?: string;
}

export function slackEmulator(): VendorEmulator {
  let messages: Message[] = [];
  const app = new Hono().basePath('/slack');
  const ts = () => `${Math.floor(Date.now() / 1000)}.${String(messages.length + 1).padStart(6, '0')}`;

  app.post('/services/:team/:bot/:token', async (c) => {
    if (`/services/${c.req.param('team')}/${c.req.param('bot')}/${c.req.param('token')}` !== SLACK_WEBHOOK_PATH) {
      return c.text('no_service', 404);
    }
    const body = (await c.req.json().catch(() => null)) as { text?: string; blocks?: unknown[] } | null;
    if (!body) return c.text('invalid_payload', 400);
    if (!body.text && !body.blocks?.length) return c.text('no_text', 400);
    messages.push({ channel: 'webhook', text: body.text, blocks: body.blocks, ts: ts(), via: 'incoming-webhook' });
    return c.text('ok');
  });

  app.post('/api/chat.postMessage', async (c) => {
    if (c.req.header('authorization') !== `Bearer ${SLACK_BOT_TOKEN}`) return c.json({ ok: false, error: 'invalid_auth' });
    const body = (await c.req.json().catch(() => null)) as { channel?: string; text?: string; blocks?: unknown[]; thread_ts?: string } | null;
    if (!body) return c.json({ ok: false, error: 'invalid_json' });
    if (body.channel !== SLACK_CHANNEL) return c.json({ ok: false, error: 'channel_not_found' });
    if (!body.text && !body.blocks?.length) return c.json({ ok: false, error: 'no_text' });
    const message: Message = { channel: body.channel, text: body.text, blocks: body.blocks, ts: ts(), via: 'web-api', thread_ts: body.thread_ts };
    messages.push(message);
    return c.json({ ok: true, channel: message.channel, ts: message.ts, message: { text: message.text, ts: message.ts } });
  });

  return {
    vendor: 'slack',
    prefixes: ['/slack'],
    app,
    records: { chat: () => [...messages].reverse() },
    failure: (c) => c.text('rollup_error', 500),
    throttle: (c, seconds) => c.text('rate_limited', 429, { 'retry-after': String(seconds) }),
    reset: () => (messages = []),
    dump: () => messages,
    load: (saved) => (messages = saved as Message[]),
  };
}

export const slackVendor: LocalVendor = {
  create: () => slackEmulator(),
  env: (ctx) => ({ SLACK_WEBHOOK_URL: `${ctx.hostUrl}/slack${SLACK_WEBHOOK_PATH}` }),
};
