// Slack as our chat adapter calls it (vendor-contracts §4): an incoming
// webhook (plain-text "ok", plain-text errors) and chat.postMessage (HTTP 200
// with ok:false on logical failure). Throttles carry Retry-After. Faults of its
// own: posting-limit and internal-error, chat.postMessage's ok:false answers
// for "not posted, later" and "may have been posted".
import { Hono } from 'hono';
import { declaredOnly } from './declared.ts';
import type { VendorEmulator, VendorFault } from './host.ts';
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

export const SLACK_DIFFERENCES = [
  'An incoming webhook takes only text and blocks here (vendor-contracts §4); the real one also takes legacy fields (attachments, thread_ts, mrkdwn) and ignores unknown ones. Anything else is refused with 400 invalid_payload.',
  'chat.postMessage refuses an argument slack-web.json does not declare with ok:false invalid_arguments; the real method ignores unknown arguments.',
  'One webhook and one channel. Enforces one message a second (SLACK_RATE_LIMIT) per webhook and per channel, with bursts of two (Slack allows short bursts without saying how long); the workspace-wide cap Slack also applies is not published, and not enforced.',
];

export function slackEmulator(): VendorEmulator {
  let messages: Message[] = [];
  const app = new Hono().basePath('/slack');
  app.use(
    '*',
    declaredOnly({
      base: '/slack',
      operations: [
        { method: 'POST', path: '/services/:team/:bot/:token', body: { text: 'any', blocks: 'any' } },
        {
          method: 'POST',
          path: '/api/chat.postMessage',
          // The arguments slack-web.json declares for chat.postMessage.
          body: {
            channel: 'any', text: 'any', blocks: 'any', attachments: 'any', as_user: 'any', icon_emoji: 'any', icon_url: 'any', link_names: 'any',
            mrkdwn: 'any', parse: 'any', reply_broadcast: 'any', thread_ts: 'any', unfurl_links: 'any', unfurl_media: 'any', username: 'any',
          },
        },
      ],
      refuse: (c, undeclared) => {
        const webApi = c.req.path.startsWith('/slack/api/');
        if (undeclared.kind === 'operation') return webApi ? c.json({ ok: false, error: 'unknown_method' }, 404) : c.text('no_service', 404);
        return webApi ? c.json({ ok: false, error: 'invalid_arguments' }) : c.text('invalid_payload', 400);
      },
    }),
  );
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
    throttle: (c, seconds) => c.text('rate_limited', 429, { 'retry-after': String(Math.ceil(seconds)) }),
    // About one message a second per incoming webhook, and per channel for chat.postMessage, "short bursts >1
    // allowed"; past it, 429 with Retry-After (api.slack.com/docs/rate-limits, "Posting messages"; vendor-contracts §4).
    rateLimit: {
      setting: 'SLACK_RATE_LIMIT',
      published: { limit: 1, windowSeconds: 1 },
      burst: 2,
      subject: async (c) => {
        if (!c.req.path.endsWith('/api/chat.postMessage')) return c.req.path;
        const body = (await c.req.raw.clone().json().catch(() => null)) as { channel?: string } | null;
        return `channel ${body?.channel ?? ''}`;
      },
    },
    faultModes: {
      // chat.postMessage's own limit on posts answers HTTP 200 with ok:false rate_limited, and
      // nothing is posted (docs.slack.dev/reference/methods/chat.postMessage, Errors).
      'posting-limit': postMessageAnswers('rate_limited'),
      // An ok:false internal_error: the post may or may not have happened (same reference).
      'internal-error': postMessageAnswers('internal_error'),
    },
    reset: () => (messages = []),
    differences: SLACK_DIFFERENCES,
    dump: () => messages,
    load: (saved) => (messages = saved as Message[]),
  };
}

/**
 * A fault in which chat.postMessage answers HTTP 200 with ok:false and this error, posting nothing.
 * An incoming webhook has no such answer: the fault leaves it alone.
 */
function postMessageAnswers(error: string): VendorFault {
  return async (c, next) => {
    if (c.req.path.endsWith('/api/chat.postMessage')) return c.json({ ok: false, error });
    await next();
    return c.res;
  };
}

export const slackVendor: LocalVendor = {
  create: () => slackEmulator(),
  env: (ctx) => ({ SLACK_WEBHOOK_URL: `${ctx.hostUrl}/slack${SLACK_WEBHOOK_PATH}` }),
};
