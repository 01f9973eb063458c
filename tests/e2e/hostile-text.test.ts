// Issue 13's hostile company name over HTTP on the local stack, through a
// signup (as its name), onboarding-v2, enhanced onboarding and a booking (as
// the account's company, the invitee's name, the meeting's title and the
// cancellation's reason). What the Resend and Slack emulators recorded must
// hold no control character in any e-mail header and no Slack markup (a
// special mention <!…>, a user or channel link, a labelled link <url|text>)
// anywhere in any chat message.
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { bookingJobName } from '../../lib/webhooks/booking-queue.ts';
import { api, recorded, stack } from '../support/http.ts';
import { followRun, SERVICE_KEY } from '../support/onboarding.ts';
import { mailTo } from '../support/users.ts';
import { memberRecord } from '../support/stack-db.ts';
import { owner } from '../support/team.ts';
import { BOOKING_MACHINE, bookingExecution, calendlyBody, calendlyEventId, deliverWebhook, membershipMember, onboardedAccount, stackSfn } from '../support/webhooks.ts';

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
    // Two confirmations: the signer's, and the owner's, who signs up to accept the account's invitation.
    expect(ours.map((e) => e.subject).sort()).toEqual(
      [
        'Confirm your e-mail address',
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

    // Chat: the two notices and the two alerts arrived, escaped (read without the zero-width breaks that keep
    // users' links inert); no recorded message anywhere holds markup but our own portal links.
    const messages = await recorded<{ text: string; blocks?: unknown[] }[]>('chat');
    const read = (m: { text: string }) => m.text.replaceAll('\u200b', '');
    const notices = messages.filter((m) => read(m).includes(`Contact: ${owner}`));
    expect(notices).toHaveLength(2);
    const alerts = messages.filter((m) => read(m).includes(`guest-${t}@example.org`));
    expect(alerts).toHaveLength(2);
    for (const message of [...notices, ...alerts]) expect(read(message)).toContain('&lt;!channel&gt; &lt;https://evil.example|click here&gt; Bcc: spy@evil.example');
    const ourLinks = new RegExp(`<${stack().env.PORTAL_URL!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[a-z0-9-]+>`, 'g');
    for (const message of messages) {
      for (const text of stringsIn(message)) expect(text.replace(ourLinks, '')).not.toMatch(CHAT_MARKUP);
    }
  });
});

/**
 * What Slack's server would turn into a link in a message's text: a scheme, "www.", an address or a
 * domain name (docs.slack.dev, formatting: URL detection is done by the server, on plain text).
 */
const LINKABLE = /(?:https?|ftp):\/\/|mailto:[^\s\u200b]|\bwww\.[^\s\u200b]|[\p{L}\p{N}_-]@[\p{L}\p{N}-]+\.\p{L}|[\p{L}\p{N}-]\.\p{L}{2,}/u;

/** Every mrkdwn text object of a message's blocks. */
const mrkdwnObjects = (value: unknown): { type: string; text: string; verbatim?: boolean }[] =>
  Array.isArray(value)
    ? value.flatMap(mrkdwnObjects)
    : value && typeof value === 'object'
      ? [...((value as { type?: string }).type === 'mrkdwn' ? [value as { type: string; text: string }] : []), ...Object.values(value).flatMap(mrkdwnObjects)]
      : [];

async function ownersAccount() {
  const o = await owner();
  const settings = await o.client.get(`/api/accounts/${o.accountId}/webhooks`, o.auth);
  expect(settings.status).toBe(200);
  return { accountId: o.accountId, urls: settings.body.urls as { membership: string; booking: string } };
}

describe('a link in a booking', () => {
  it('reaches Slack as text, never as a link: the scheme and dots of what an outside party wrote are broken, and Slack is told not to link', async () => {
    // Onboarded: a booking's task goes to the account's ClickUp list, which the onboarding made.
    const account = await onboardedAccount();
    const t = token();
    const evil = 'https://evil.example';
    const booked = calendlyBody('invitee.created', t, { name: evil, scheduled_event: { name: `${evil}/login`, start_time: '2026-04-07T08:00:00.000000Z' } });
    expect((await deliverWebhook(account.urls.booking, booked)).body).toEqual({ received: true, outcome: 'queued' });
    await bookingExecution(account.accountId, 'calendly', calendlyEventId('invitee.created', t));

    const [alert] = (await recorded<{ text: string; blocks?: unknown[] }[]>('chat')).filter((m) => m.text.replaceAll('\u200b', '').includes(`guest-${t}@example.org`));
    expect(alert).toBeDefined();
    // Still readable as what was written...
    expect(alert!.text.replaceAll('\u200b', '')).toContain(`${evil} (guest-${t}@example.org) booked "${evil}/login"`);
    // ...but nothing in it is a link, in the fallback text or the blocks, and the blocks ask Slack not to make one.
    for (const text of [alert!.text, ...mrkdwnObjects(alert!.blocks).map((o) => o.text)]) expect(text).not.toMatch(LINKABLE);
    expect(mrkdwnObjects(alert!.blocks).length).toBeGreaterThan(0);
    for (const object of mrkdwnObjects(alert!.blocks)) expect(object.verbatim).toBe(true);
  });
});

describe('an event named after a property every object has', () => {
  const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

  it('is no event the webhooks know: refused or ignored, never applied or queued', async () => {
    const account = await ownersAccount();
    const t = token();
    const queuedNames: string[] = [];
    for (const name of NAMES) {
      const email = `${name.replaceAll('_', '')}-${t}@example.org`;
      const membership = JSON.stringify({
        event: name,
        timestamp: Date.now(),
        payload: { ...membershipMember(`mem_${name}_${t}`, email), planConnection: { id: `con_${t}`, status: 'ACTIVE', active: true } },
      });
      const uri = `https://api.calendly.com/scheduled_events/EV-${name}-${t}/invitees/INV-${t}`;
      const calendly = JSON.stringify({ event: name, created_at: new Date().toISOString(), payload: { uri, email, name: 'Guest', scheduled_event: { name: 'Call', start_time: '2026-04-07T08:00:00Z' } } });
      const uid = `uid-${name}-${t}`;
      const calcom = JSON.stringify({ triggerEvent: name, createdAt: new Date().toISOString(), payload: { uid, title: 'Call', startTime: '2026-05-04T15:00:00Z', attendees: [{ name: 'Guest', email }] } });
      for (const [url, body] of [[account.urls.membership, membership], [account.urls.booking, calendly], [account.urls.booking, calcom]] as const) {
        const reply = await deliverWebhook(url, body);
        const answer = reply.status === 200 ? `200 ${reply.body.outcome}` : String(reply.status);
        expect(['200 ignored', '400'], `${name}: ${body.slice(0, 40)} → ${reply.status} ${reply.text.slice(0, 120)}`).toContain(answer);
      }
      expect(await memberRecord(account.accountId, email), name).toBeUndefined();
      queuedNames.push(bookingJobName(`booking#${account.accountId}#calendly#${name}|${uri}`), bookingJobName(`booking#${account.accountId}#calcom#${name}|${uid}`));
    }
    const { executions = [] } = await stackSfn().send(new ListExecutionsCommand({ stateMachineArn: BOOKING_MACHINE }));
    expect(executions.map((e) => e.name).filter((n) => queuedNames.includes(n!))).toEqual([]);
  });
});
