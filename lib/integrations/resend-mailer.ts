import { Resend } from 'resend';
import { oneLine, TEXT_LIMITS } from '../text.ts';
import { AttemptFailed, withRetries, type RetryPolicy } from './retry.ts';
import type { Mailer, OutgoingEmail } from './mailer.ts';

interface ResendSettings {
  apiKey: string;
  baseUrl: string;
  from: string;
}

// Resend answers 429 for both rate limits and spent quotas; only the first is worth retrying.
const PERMANENT_429 = new Set(['daily_quota_exceeded', 'monthly_quota_exceeded']);

export function resendMailer(settings: ResendSettings, policy: RetryPolicy & { timeoutMs: number }): Mailer {
  const client = new Resend(settings.apiKey, { baseUrl: settings.baseUrl });
  return {
    send: (email: OutgoingEmail) =>
      withRetries('resend', `send the ${email.kind} e-mail`, policy, async () => {
        await policy.pace?.take();
        const { data, error, headers } = await client.emails.send(
          {
            from: settings.from,
            to: email.to,
            // The last guard before the vendor writes it as a header: one line, whatever the template did.
            subject: oneLine(email.subject, TEXT_LIMITS.subject),
            html: email.html,
            text: email.text,
            replyTo: email.replyTo && oneLine(email.replyTo, TEXT_LIMITS.email),
            tags: [{ name: 'kind', value: email.kind.replace(/[^A-Za-z0-9_-]/g, '_') }],
          },
          { idempotencyKey: email.idempotencyKey, signal: AbortSignal.timeout(policy.timeoutMs) },
        );
        if (data) return { id: data.id };
        const status = (error as { statusCode?: number | null } | null)?.statusCode ?? undefined;
        const name = (error as { name?: string } | null)?.name;
        const transient =
          status === undefined || status === null || status >= 500 || (status === 429 && !PERMANENT_429.has(name ?? '')) ||
          name === 'concurrent_idempotent_requests';
        const retryAfter = Number(headers?.['retry-after']);
        throw new AttemptFailed({
          transient,
          reason: status ? (status === 429 ? 'was throttled (429)' : `answered ${status}`) : 'could not be reached',
          status: status ?? undefined,
          vendorCode: name,
          retryAfterMs: Number.isFinite(retryAfter) && headers?.['retry-after'] ? retryAfter * 1000 : undefined,
        });
      }),
  };
}
