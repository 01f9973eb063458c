// Slack (vendor-contracts §4): an incoming webhook answers plain text ("ok",
// or an error word with a 4xx); chat.postMessage answers HTTP 200 with
// ok:false on logical failures. Neither has an idempotency key and neither
// can be searched for what was posted, so a post whose answer was lost
// (timeout, dropped connection, 5xx) is never retried in-process; the error
// goes up, and the state machine's retry of the step may post it again: for
// notices, a rare duplicate is chosen over a lost one. A 429 (not posted) is
// retried after Retry-After. Callers record what was posted, so a re-run
// never re-posts a confirmed message.
import { VendorError } from '../errors.ts';
import type { Chat, ChatMessage } from './chat.ts';
import { retryAfterHeader, vendorHttp } from './http-client.ts';
import type { RetryPolicy } from './retry.ts';

type Settings = { mode: 'incoming-webhook'; webhookUrl: string } | { mode: 'web-api'; botToken: string; channel: string; apiBase: string };

export function slackChat(settings: Settings, vendorPolicy: RetryPolicy & { timeoutMs: number }): Chat {
  // A post cannot be deduplicated, so a slow answer is waited for longer before
  // the attempt is given up (a retry of the step after a post that did land repeats it).
  const policy = { ...vendorPolicy, timeoutMs: vendorPolicy.timeoutMs * 3 };
  if (settings.mode === 'incoming-webhook') {
    const http = vendorHttp({
      vendor: 'slack',
      baseUrl: settings.webhookUrl,
      headers: () => ({}),
      policy,
      retryHint: retryAfterHeader,
      errorCode: (body) => (typeof body === 'string' ? body.trim() : undefined),
    });
    return {
      async post(message: ChatMessage) {
        await http('post a notice', { path: '', json: { text: message.text, blocks: message.blocks }, repeatable: false });
        return {};
      },
    };
  }

  const http = vendorHttp({
    vendor: 'slack',
    baseUrl: settings.apiBase,
    headers: () => ({ authorization: `Bearer ${settings.botToken}` }),
    policy,
    retryHint: retryAfterHeader,
  });
  return {
    async post(message: ChatMessage) {
      const res = await http<{ ok: boolean; ts?: string; error?: string }>('post a notice', {
        path: '/chat.postMessage',
        json: { channel: settings.channel, text: message.text, blocks: message.blocks },
        repeatable: false,
      });
      if (!res.body.ok) {
        throw VendorError.rejected('slack', 'post a notice', { status: res.status, vendorCode: res.body.error });
      }
      return { ts: res.body.ts };
    },
  };
}
