// Resend's e-mail API as the resend SDK calls it: POST /emails with a bearer
// key and an optional Idempotency-Key (same key + same payload → same id,
// different payload → 409; a key is remembered 24 h, then a send with it is a
// new e-mail: resend.com/docs/dashboard/emails/idempotency-keys, vendor-contracts
// §3, RS5). The mailbox is at /_local/emails, newest first.
import { Hono } from 'hono';
import { createHash } from 'node:crypto';
import { declaredOnly } from './declared.ts';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const RESEND_KEY = 're_local_emulator_key';

interface SentEmail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  html?: string;
  text?: string;
  reply_to?: string[];
  tags?: { name: string; value: string }[];
  idempotency_key?: string;
  created_at: string;
}

interface State {
  emails: SentEmail[];
  /** `at`: when the key was first used (ms); rows saved before it was kept have none and count as fresh. */
  idempotency: Record<string, { hash: string; id: string; at?: number }>;
}

const KEY_KEPT_MS = 24 * 3600 * 1000;

const error = (statusCode: number, name: string, message: string) => ({ statusCode, name, message });

export const RESEND_DIFFERENCES = [
  'Refuses (422 validation_error) a body field that POST /emails does not declare in resend.json, and any other route (404 not_found); the real API may ignore an unknown field.',
  'Sends nothing: the mailbox is /_local/emails. No domain verification, no testing-only addresses, no quotas.',
  'Enforces the published 5 requests a second (RESEND_RATE_LIMIT) per key in fixed one-second windows; the real limit is per team, across its keys.',
];

export function resendEmulator(): VendorEmulator {
  let state: State = { emails: [], idempotency: {} };
  const app = new Hono().basePath('/resend');
  app.use(
    '*',
    declaredOnly({
      base: '/resend',
      // The fields resend.json declares for POST /emails.
      operations: [
        {
          method: 'POST',
          path: '/emails',
          body: {
            from: 'any', to: 'any', subject: 'any', bcc: 'any', cc: 'any', reply_to: 'any', html: 'any', text: 'any', template: 'any',
            headers: 'any', scheduled_at: 'any', attachments: 'any', tags: [{ name: 'any', value: 'any' }], topic_id: 'any',
          },
        },
      ],
      refuse: (c, undeclared) =>
        undeclared.kind === 'operation'
          ? c.json(error(404, 'not_found', 'The requested endpoint does not exist.'), 404)
          : c.json(error(422, 'validation_error', `\`${undeclared.kind === 'query' ? undeclared.name : undeclared.path.join('.')}\` is not a parameter of this endpoint.`), 422),
    }),
  );

  app.post('/emails', async (c) => {
    const auth = c.req.header('authorization');
    if (!auth) return c.json(error(401, 'missing_api_key', 'Missing API key in the authorization header'), 401);
    if (auth !== `Bearer ${RESEND_KEY}`) return c.json(error(403, 'invalid_api_key', 'API key is invalid'), 403);
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body) return c.json(error(422, 'validation_error', 'Invalid JSON'), 422);
    for (const field of ['from', 'to', 'subject']) {
      if (!body[field]) return c.json(error(422, 'missing_required_field', `Missing \`${field}\` field.`), 422);
    }
    if (!body.html && !body.text) return c.json(error(422, 'validation_error', 'Provide html or text'), 422);
    const key = c.req.header('idempotency-key');
    const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    if (key) {
      if (key.length > 256) return c.json(error(400, 'invalid_idempotency_key', 'Key must be 1-256 characters'), 400);
      const cutoff = Date.now() - KEY_KEPT_MS;
      for (const [k, v] of Object.entries(state.idempotency)) if (v.at !== undefined && v.at < cutoff) delete state.idempotency[k];
      const seen = state.idempotency[key];
      if (seen && seen.hash !== hash) {
        return c.json(error(409, 'invalid_idempotent_request', 'Same idempotency key used with a different payload'), 409);
      }
      if (seen) return c.json({ id: seen.id });
    }
    const email: SentEmail = {
      id: crypto.randomUUID(),
      from: String(body.from),
      to: [body.to].flat().map(String),
      subject: String(body.subject),
      html: body.html as string | undefined,
      text: body.text as string | undefined,
      reply_to: body.reply_to ? [body.reply_to].flat().map(String) : undefined,
      tags: body.tags as SentEmail['tags'],
      idempotency_key: key,
      created_at: new Date().toISOString(),
    };
    state.emails.push(email);
    if (key) state.idempotency[key] = { hash, id: email.id, at: Date.now() };
    return c.json({ id: email.id });
  });

  return {
    vendor: 'resend',
    prefixes: ['/resend'],
    app,
    records: { emails: () => [...state.emails].reverse() },
    failure: (c) => c.json(error(500, 'internal_server_error', 'An unexpected error occurred'), 500),
    throttle: (c, seconds) =>
      c.json(error(429, 'rate_limit_exceeded', 'Too many requests'), 429, {
        'retry-after': String(Math.ceil(seconds)),
        'ratelimit-limit': '5',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(Math.ceil(seconds)),
      }),
    // Per team, across its keys: 5 requests a second, with ratelimit-* on every answer and retry-after on a 429
    // (resend.com/docs/api-reference/rate-limit; vendor-contracts §3). The local stack has one team, one key.
    rateLimit: {
      setting: 'RESEND_RATE_LIMIT',
      published: { limit: 5, windowSeconds: 1 },
      subject: (c) => c.req.header('authorization'),
      headers: ({ limit, remaining, resetAt }) => ({
        'ratelimit-limit': String(limit),
        'ratelimit-remaining': String(remaining),
        'ratelimit-reset': String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000))),
      }),
    },
    reset: () => (state = { emails: [], idempotency: {} }),
    differences: RESEND_DIFFERENCES,
    dump: () => state,
    load: (saved) => (state = saved as State),
  };
}

export const resendVendor: LocalVendor = {
  create: () => resendEmulator(),
  env: (ctx) => ({
    RESEND_API_KEY: RESEND_KEY,
    RESEND_BASE_URL: `${ctx.hostUrl}/resend`,
    EMAIL_FROM: 'Agency <hello@agency.local>',
    TEAM_NOTIFICATION_EMAIL: 'team@agency.local',
  }),
};
