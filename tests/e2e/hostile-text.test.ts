// Issue 13's hostile company name over HTTP on the local stack, through a
// signup (as its name), onboarding-v2, enhanced onboarding and a booking (as
// the account's company, the invitee's name, the meeting's title and the
// cancellation's reason). What the Resend and Slack emulators recorded must
// hold no control character in any e-mail header and no Slack markup (a
// special mention <!…>, a user or channel link, a labelled link <url|text>)
// anywhere in any chat message.
import { describe, expect, it } from 'vitest';
import { api, recorded } from '../support/http.ts';
import { followRun, SERVICE_KEY } from '../support/onboarding.ts';
import { mailTo } from '../support/users.ts';
import { bookingExecution, calendlyBody, calendlyEventId, deliverWebhook, onboardedAccount } from '../support/webhooks.ts';

const HOSTILE = 'Acme <!channel> <https://evil.example|click here>\r\nBcc: spy@evil.example';
const token = () => Math.random().toString(36).slice(2, 8);

/** What may not be in an e-mail header: C0/C1 controls (CR, LF, NUL …), the Unicode line and paragraph separators. */
const HEADER_BREAKER = /[\p{Cc}\p{Zl}\p{Zp}]/u;
/** Slack markup: <!channel>, <!here>, <@U…>, <#C…>, <!subteam^…>, <url|text>, <url>. */
const CHAT_MARKUP = /<[!@#][^>]*>|<[^<>|]*\|[^<>]*>|<(?:https?|mailto):[^>]*>/i;

interface RecordedEmail {
  from: string;
  to: string[];
  subject: string;
  text?: string;
  html?: string;
  reply_to?: string[];
  tags?: { name: string; value: string }[];
}

/** Every string anywhere in a value (a chat message's text, its blocks and their texts). */
const stringsIn = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(stringsIn) : [];

describe('a hostile company name', () => {
  it('reaches no e-mail header as a control character and no chat message as markup', async () => {
    const t = token();
    const owner = `owner-${t}@hostile-${t}.example`;
    const signer = `signer-${t}@hostile-${t}.example`;

    // A signup whose name is the hostile text: its verification e-mail.
    const signup = await api('/api/auth/signup', { body: { email: signer, password: 'Secret123', metadata: { name: HOSTILE, companyName: HOSTILE } } });
    expect(signup.status).toBe(201);

    // Onboarding: the welcome, workspace, team and invitation e-mails, and the new-client notice.
    const account = await onboardedAccount(SERVICE_KEY, owner, HOSTILE);
    // Enhanced onboarding of the same company: its own notice.
    const enhanced = await followRun(await api('/api/onboarding/enhanced', { body: { email: owner, companyName: HOSTILE }, headers: SERVICE_KEY }), 120);
    expect(enhanced.status).toBe(200);
    expect(enhanced.body.accountId).toBe(account.accountId);
    expect(enhanced.body.details.slack).toEqual({ posted: ['enhanced-onboarding'] });

    // A booking and its cancellation, every free-text field hostile: two alerts.
    const scheduled = { name: HOSTILE, start_time: '2026-04-07T08:00:00.000000Z', end_time: '2026-04-07T08:30:00.000000Z' };
    const booked = calendlyBody('invitee.created', t, { name: HOSTILE, scheduled_event: scheduled });
    expect((await deliverWebhook(account.urls.booking, booked)).body).toEqual({ received: true, outcome: 'queued' });
    await bookingExecution(account.accountId, 'calendly', calendlyEventId('invitee.created', t));
    const cancelled = calendlyBody('invitee.canceled', t, { name: HOSTILE, scheduled_event: scheduled, cancellation: { canceled_by: HOSTILE, reason: HOSTILE } });
    expect((await deliverWebhook(account.urls.booking, cancelled)).body).toEqual({ received: true, outcome: 'queued' });
    await bookingExecution(account.accountId, 'calendly', calendlyEventId('invitee.canceled', t));

    // E-mails: ours all arrived; no header of any recorded e-mail carries a control character.
    const emails = await recorded<RecordedEmail[]>('emails');
    const ours = [...(await mailTo(owner)), ...(await mailTo(signer)), ...emails.filter((e) => e.text?.replaceAll('\u200b', '').includes(`Contact: ${owner}`) && !e.to.includes(owner))];
    expect(ours.map((e) => e.subject).sort()).toEqual(
      [
        'Confirm your e-mail address',
        'Join Acme <!channel> <https://evil.example|click here> Bcc: spy@evil.example',
        'New client: Acme <!channel> <https://evil.example|click here> Bcc: spy@evil.example',
        'Welcome aboard, Acme <!channel> <https://evil.example|click here> Bcc: spy@evil.example',
        'Your shared workspace for Acme <!channel> <https://evil.example|click here> Bcc: spy@evil.example is ready',
      ].sort(),
    );
    for (const email of emails) {
      const headers = [email.from, email.subject, ...email.to, ...(email.reply_to ?? []), ...(email.tags ?? []).flatMap((tag) => [tag.name, tag.value])];
      for (const header of headers) expect(header, `a header of "${email.subject.slice(0, 60)}"`).not.toMatch(HEADER_BREAKER);
      expect(email.to).not.toContain('spy@evil.example');
    }
    for (const email of ours) {
      expect(email.html).not.toMatch(/<!channel>|<https?:/);
      expect(email.text).not.toMatch(/https?:\/\/evil|evil\.example/);
    }

    // Chat: the two notices and the two alerts arrived, escaped; no recorded message anywhere holds markup.
    const messages = await recorded<{ text: string; blocks?: unknown[] }[]>('chat');
    const notices = messages.filter((m) => m.text.includes(`Contact: ${owner}`));
    expect(notices).toHaveLength(2);
    const alerts = messages.filter((m) => m.text.includes(`guest-${t}@example.org`));
    expect(alerts).toHaveLength(2);
    for (const message of [...notices, ...alerts]) expect(message.text).toContain('&lt;!channel&gt; &lt;https://evil.example|click here&gt; Bcc: spy@evil.example');
    for (const message of messages) {
      for (const text of stringsIn(message)) expect(text).not.toMatch(CHAT_MARKUP);
    }
  });
});
