// Slack (vendor-contracts §4): an incoming webhook answers plain text ("ok",
// or an error word with a 4xx); chat.postMessage answers HTTP 200 with
// ok:false on logical failures. Neither has an idempotency key and neither
// can be searched for what was posted, so a post whose answer was lost
// (timeout, dropped connection, 5xx) is never retried in-process; the error
// goes up, and the state machine's retry of the step may post it again: for
// notices, a rare duplicate is chosen over a lost one. A 429 (not posted) is
// retried after Retry-After, and so is chat.postMessage's ok:false that says
// it was throttled. Callers record what was posted, so a re-run
// never re-posts a confirmed message.
import { safeVendorCode, VendorError } from '../errors.ts';
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
    errorCode: (body) => (body as WebApiAnswer | undefined)?.error,
    isThrottle: (_res, body) => NOT_POSTED_YET.has((body as WebApiAnswer | undefined)?.error ?? ''),
  });
  return {
    async post(message: ChatMessage) {
      const operation = 'post a notice';
      const res = await http<WebApiAnswer>(operation, {
        path: '/chat.postMessage',
        json: { channel: settings.channel, text: message.text, blocks: message.blocks },
        repeatable: false,
      });
      if (!res.body.ok) {
        const vendorCode = safeVendorCode(res.body.error);
        if (MAYBE_POSTED.has(res.body.error ?? '')) {
          // As a 5xx: the state machine's retry may post it again.
          throw new VendorError('slack', `slack: ${operation} failed (${vendorCode})`, { transient: true, outcomeUnknown: true, operation, status: res.status, vendorCode });
        }
        throw VendorError.rejected('slack', operation, { status: res.status, vendorCode });
      }
      return { ts: res.body.ts };
    },
  };
}

type WebApiAnswer = { ok: boolean; ts?: string; error?: string };

/**
 * chat.postMessage's ok:false errors (HTTP 200) that mean "not posted, ask later": its limit on
 * posts (rate_limited), the method's rate limit (ratelimited), the team's (message_limit_exceeded).
 * Retried as a 429 is. The errors whose post may have happened are retried as a 5xx is. Both lists
 * are from the method's reference (docs.slack.dev/reference/methods/chat.postMessage, Errors).
 */
const NOT_POSTED_YET = new Set(['rate_limited', 'ratelimited', 'message_limit_exceeded']);
const MAYBE_POSTED = new Set(['internal_error', 'fatal_error', 'request_timeout', 'service_unavailable']);
