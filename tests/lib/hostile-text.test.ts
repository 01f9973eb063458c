// The attack of issue 13 against every place user text leaves the service, in
// memory: a company name (and a person's name, a meeting title, a reason)
// that tries to add an e-mail header, a Slack channel-wide mention and a
// disguised link. E-mail headers must stay one clean line; the HTML part must
// carry it escaped, the text part with nothing a mail client would link; chat
// messages must carry it escaped, so Slack reads no markup in it.
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { invitationEmail } from '../../lib/accounts/emails.ts';
import { verificationEmail } from '../../lib/auth/emails.ts';
import type { ChatMessage } from '../../lib/integrations/chat.ts';
import type { OutgoingEmail } from '../../lib/integrations/mailer.ts';
import { postChatNotices } from '../../lib/onboarding/steps/post-chat-notices.ts';
import { sendOnboardingEmails } from '../../lib/onboarding/steps/send-onboarding-emails.ts';
import { parseBookingEvent, type BookingEvent } from '../../lib/webhooks/booking-events.ts';
import { postBookingAlert } from '../../lib/webhooks/steps/post-booking-alert.ts';
import { fakeInvitations } from '../support/account-fakes.ts';
import { fakeAccounts, fakeChat, fakeLedger, fakeMailer, fakeRuns } from '../support/fakes.ts';

export const HOSTILE = 'Acme <!channel> <https://evil.example|click here>\r\nBcc: spy@evil.example';

/** What may never reach an e-mail header: CR, LF and every other control or separator character. */
const HEADER_BREAKER = /[\p{Cc}\p{Zl}\p{Zp}]/u;
/** What a mail client would make a link of, from the hostile text. */
const USER_LINK = /https?:\/\/evil|evil[.]example|www[.]/i;
/** Slack's markup: a special mention (<!channel>), a user or channel link (<@U…>, <#C…>), a labelled link (<url|text>). */
const CHAT_MARKUP = /<[!@#][^>]*>|<[^<>]*\|[^<>]*>|<https?:/;

function expectCleanEmail(email: Pick<OutgoingEmail, 'subject' | 'text' | 'html'>) {
  expect(email.subject).not.toMatch(HEADER_BREAKER);
  expect(email.subject.length).toBeLessThanOrEqual(200);
  expect(email.text).not.toMatch(USER_LINK);
  expect(email.html).not.toMatch(/<!channel>|<https?:|\r\nBcc/);
}

/** Our own link in a message: the portal's, written as a link where Slack would not find it itself. */
const OUR_LINK = /<https:\/\/portal\.example\/[a-z0-9-]+>/g;

function expectCleanChat(message: ChatMessage) {
  const everything = JSON.stringify(message);
  expect(message.text).not.toMatch(CHAT_MARKUP);
  expect(message.text).not.toMatch(USER_LINK);
  for (const text of everything.match(/"text":"(?:[^"\\]|\\.)*"/g) ?? []) {
    const shown = JSON.parse(`{${text}}`).text as string;
    expect(shown.replace(OUR_LINK, '')).not.toMatch(CHAT_MARKUP);
    expect(shown).not.toMatch(USER_LINK);
  }
  // Every mrkdwn object is verbatim: Slack links nothing in it by itself.
  for (const object of everything.match(/\{"type":"mrkdwn"[^{}]*\}/g) ?? []) expect(JSON.parse(object)).toMatchObject({ verbatim: true });
  // No line of the user's can pose as a line of ours.
  expect(message.text).not.toMatch(/\nBcc:/);
}

const input = { accountId: 'acct-1', email: 'ann@acme.example', runId: 'run-1', portalSlug: 'acme' };
let accounts: ReturnType<typeof fakeAccounts>;

beforeEach(async () => {
  accounts = fakeAccounts();
  await accounts.store.saveAccountDetails('acct-1', {
    company_name: HOSTILE,
    company_url: 'https://acme.example',
    phone: `+1 555 0100\r\nX-Injected: 1`,
    storage_link: 'https://share.example/1',
  });
  await accounts.store.claimMember({ email: input.email, account_id: 'acct-1', role: 'owner' });
});

describe('a hostile company name in e-mails', () => {
  it('leaves the onboarding e-mails (welcome, team notice, workspace) with clean headers and inert text', async () => {
    const mailer = fakeMailer();
    await sendOnboardingEmails({ mailer, ledger: fakeLedger(), accounts: accounts.store, portalUrl: 'https://portal.example', teamAddress: 'team@agency.example', invitations: fakeInvitations() }, input);
    expect(mailer.sent.map((e) => e.kind)).toEqual(['welcome', 'team-new-client', 'storage-ready']);
    for (const email of mailer.sent) expectCleanEmail(email);
    // Our own links stay links.
    expect(mailer.sent[0]!.text).toContain('https://portal.example/acme');
    expect(mailer.sent[2]!.text).toContain('https://share.example/1');
    expect(mailer.sent[1]!.text).not.toMatch(/^X-Injected/m);
  });

  it("leaves a signup's name in the verification e-mail inert", () => {
    expectCleanEmail(verificationEmail('https://portal.example/verify?token=t', 24, HOSTILE));
  });

  it('leaves the invitation e-mail clean', () => {
    expectCleanEmail(invitationEmail({ company: HOSTILE, inviter: 'ann@acme.example', role: 'member', link: 'https://portal.example/invite', validDays: 7 }));
  });
});

describe('a hostile company name in chat', () => {
  it('makes no mention or link in the new-client notice', async () => {
    const chat = fakeChat();
    await postChatNotices({ chat, ledger: fakeLedger(), accounts: accounts.store, runs: fakeRuns(), portalUrl: 'https://portal.example' }, input);
    expect(chat.posted).toHaveLength(1);
    expectCleanChat(chat.posted[0]!);
    expect(chat.posted[0]!.text).toContain('&lt;!channel&gt;');
  });

  it('makes no mention or link in a booking alert, whoever fills its fields', async () => {
    const calcom = JSON.parse(readFileSync('tests/fixtures/webhooks/calcom-booking-created.json', 'utf8'));
    const parsed = parseBookingEvent(calcom);
    if (!parsed.handled) throw new Error('fixture not handled');
    const booking: BookingEvent = {
      ...parsed.event,
      change: 'cancelled',
      title: HOSTILE,
      invitee: { name: HOSTILE, email: 'bea@example.org' },
      cancellation: { reason: HOSTILE },
    };
    const chat = fakeChat();
    await postBookingAlert({ chat, ledger: fakeLedger(), accounts: accounts.store }, { accountId: 'acct-1', eventKey: 'booking#acct-1#calcom#1', booking, execution: 'e' });
    expect(chat.posted).toHaveLength(1);
    expectCleanChat(chat.posted[0]!);
  });
});
