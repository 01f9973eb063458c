// lib/text.ts over hostile strings: fast-check draws text made of header
// breakers (CR, LF, NUL, NEL, the Unicode separators), invisible formatting
// (bidi overrides, zero-width spaces), lone surrogates, Slack markup (<!channel>,
// <@U…>, <url|label>), HTML, schemes and domains, mixed with arbitrary code
// points. Each rule must hold for every draw, and the e-mails and chat messages
// built from such text must keep the shape they have with a harmless name.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Account } from '../../lib/accounts/accounts.ts';
import { invitationEmail } from '../../lib/accounts/emails.ts';
import { verificationEmail } from '../../lib/auth/emails.ts';
import { newClientTeamEmail, welcomeEmail } from '../../lib/onboarding/emails.ts';
import { chatField, chatText, escapeHtml, headerValue, inertLinks, markdownField, oneLine } from '../../lib/text.ts';
import { parseBookingEvent } from '../../lib/webhooks/booking-events.ts';
import { alertText } from '../../lib/webhooks/booking-text.ts';

const FRAGMENTS = [
  '\r', '\n', '\r\n', '\t', '\u0000', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029', '\u000b', '\u000c',
  '\u202e', '\u2066', '\u200e', '\u200b', '\ufeff', '\u00ad', '\u200d', '\ud800', '\udfff', '\ud83d',
  '<!channel>', '<!here>', '<!everyone>', '<@U0123>', '<#C0123>', '<!subteam^S1>', '<https://evil.example|click here>', '<mailto:a@b.c|x>',
  '&', '&amp;', '&lt;', '<', '>', '"', "'", '<script>alert(1)</script>', '</p>', '<a href="https://evil.example">',
  'https://', 'http://evil.example/x', 'HTTPS://EVIL.EXAMPLE', 'mailto:spy@evil.example', 'tel:+1555', 'javascript:alert(1)', 'data:text/html,x',
  'www.', 'WWW.evil.example', 'evil.example', 'evil\u3002example', 'evil\uff0eexample', 'spy@evil.example', '[click](https://evil.example)',
  'Bcc: spy@evil.example', 'Subject: hi', 'Acme', ' ', '  ', '.', ':', '//', '@', '|', 'é', '😀', '👩‍👩‍👧',
];

/** Hostile text: up to 16 pieces, each a known attack fragment or arbitrary code points. */
const hostile = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...FRAGMENTS) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 8 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
    ),
    { maxLength: 16 },
  )
  .map((parts) => parts.join(''));
const longHostile = fc.tuple(hostile, fc.integer({ min: 100, max: 3000 })).map(([s, n]) => s + 'x&<'.repeat(n) + s);
const anyHostile = fc.oneof({ weight: 5, arbitrary: hostile }, { weight: 1, arbitrary: longHostile });

const RUNS = { numRuns: 400 };
/** What must never be in a header: C0/C1 controls, the separators, and invisible formatting (bar ZWJ/ZWNJ). */
const HEADER_BREAKER = /[\p{Cc}\p{Zl}\p{Zp}]|(?![\u200c\u200d])\p{Cf}/u;
/** What a mail client would make a link of. */
const LINKISH = [
  /[\p{L}\p{N}+.-]:\/\//u,
  /(?:https?|ftps?|sftp|mailto|tel|sms|file|data|javascript|vbscript|ssh|irc|news|slack):(?!\u200b)/iu,
  /www[.\u3002\uff0e\uff61](?!\u200b)/iu,
  /[\p{L}\p{N}][.\u3002\uff0e\uff61@][\p{L}\p{N}]/u,
];
/** Slack markup: any < or > at all (our own templates use none). */
const CHAT_MARKUP = /[<>]/;
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
const unescapeChat = (s: string) => s.replace(/&(amp|lt|gt);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>' })[e]!);
const length = (s: string) => Array.from(s).length;

describe('oneLine', () => {
  it('leaves one trimmed, well-formed line within the bound, with no control or invisible character, and is idempotent', () => {
    fc.assert(
      fc.property(anyHostile, fc.integer({ min: 1, max: 300 }), (text, max) => {
        const line = oneLine(text, max);
        expect(line).not.toMatch(HEADER_BREAKER);
        expect(line.isWellFormed()).toBe(true);
        expect(length(line)).toBeLessThanOrEqual(max);
        expect(line).toBe(line.trim());
        expect(line).not.toMatch(/\s{2}/);
        expect(oneLine(line, max)).toBe(line);
      }),
      RUNS,
    );
  });

  it('keeps ordinary text as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((s) => s.replace(/\s+/g, ' ').trim()), (text) => {
        expect(oneLine(text, 120)).toBe(text);
      }),
    );
  });
});

describe('headerValue', () => {
  it('leaves nothing that could end a header or start another', () => {
    fc.assert(
      fc.property(anyHostile, (value) => {
        const clean = headerValue(value);
        expect(clean).not.toMatch(HEADER_BREAKER);
        expect(clean.isWellFormed()).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('escapeHtml', () => {
  it('leaves no markup character and loses nothing', () => {
    fc.assert(
      fc.property(anyHostile, (text) => {
        const html = escapeHtml(text);
        expect(html).not.toMatch(/[<>"']/);
        expect(html).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
        expect(unescapeHtml(html)).toBe(text);
      }),
      RUNS,
    );
  });
});

describe('inertLinks', () => {
  it('leaves nothing a mail client would link, and looks the same', () => {
    fc.assert(
      fc.property(anyHostile, (text) => {
        const line = oneLine(text, 300);
        const inert = inertLinks(line);
        for (const linkish of LINKISH) expect(inert).not.toMatch(linkish);
        expect(inert.replaceAll('\u200b', '')).toBe(line);
      }),
      RUNS,
    );
  });
});

describe('markdownField', () => {
  it('leaves one line with every inline markdown mark escaped, nothing a renderer would link, and reads back as the line', () => {
    fc.assert(
      fc.property(anyHostile, (text) => {
        const line = oneLine(text, 300);
        const field = markdownField(text, 300);
        expect(field).not.toMatch(/[\r\n]/);
        // Every inline mark is preceded by an odd number of backslashes: escaped, never a link, emphasis, code or HTML.
        for (const m of field.matchAll(/(\\*)([`*_[\]<>|~])/g)) expect(m[1]!.length % 2).toBe(1);
        for (const linkish of LINKISH) expect(field).not.toMatch(linkish);
        // Unescaped and without the link breaks, it is what the user wrote, on one line.
        expect(field.replace(/\\(.)/gu, '$1').replaceAll('\u200b', '')).toBe(line);
      }),
      RUNS,
    );
  });
});

describe('chatText and chatField', () => {
  it('escape & < > so Slack reads no mention, channel or link, and lose nothing', () => {
    fc.assert(
      fc.property(anyHostile, (text) => {
        const escaped = chatText(text);
        expect(escaped).not.toMatch(CHAT_MARKUP);
        expect(escaped).not.toMatch(/&(?!(amp|lt|gt);)/);
        expect(unescapeChat(escaped)).toBe(text);
      }),
      RUNS,
    );
  });

  it('make a field one escaped line that fits its bound as sent, with nothing Slack would link', () => {
    fc.assert(
      fc.property(anyHostile, fc.integer({ min: 1, max: 200 }), (text, max) => {
        const field = chatField(text, max);
        expect(field).not.toMatch(CHAT_MARKUP);
        for (const linkish of LINKISH) expect(field).not.toMatch(linkish);
        expect(field.length).toBeLessThanOrEqual(max);
        // Without the breaks that keep links inert (zero-width spaces), it is one clean line as the user wrote it.
        const read = unescapeChat(field).replaceAll('\u200b', '');
        expect(read).not.toMatch(HEADER_BREAKER);
        expect(read).toBe(oneLine(read, max));
      }),
      RUNS,
    );
  });
});

describe('e-mails and chat messages built from hostile text', () => {
  const account = (company: string, more: Partial<Account> = {}): Account =>
    ({ id: 'acct-1', status: 'active', created_at: '', updated_at: '', company_name: company, contact_email: 'ann@acme.example', ...more }) as Account;
  const tags = (html: string) => html.match(/</g)?.length ?? 0;
  const links = (text: string) => LINKISH.reduce((n, re) => n + (text.match(new RegExp(re, `${re.flags}g`))?.length ?? 0), 0);
  const emails = (name: string) => [
    welcomeEmail(account(name), 'https://portal.example/acme'),
    newClientTeamEmail(account(name, { phone: name, company_url: name, plan: name as Account['plan'] }), 'https://portal.example/acme'),
    invitationEmail({ company: name, inviter: name, role: 'member', link: 'https://portal.example/invite?token=t', validDays: 7 }),
    verificationEmail('https://portal.example/verify?token=t', 24, name),
  ];
  const harmless = emails('Acme');

  it('keep one clean subject, the HTML tags and the text links of a harmless name', () => {
    fc.assert(
      fc.property(anyHostile, (name) => {
        emails(name).forEach((email, i) => {
          expect(email.subject).not.toMatch(HEADER_BREAKER);
          expect(length(email.subject)).toBeLessThanOrEqual(200);
          expect(tags(email.html)).toBe(tags(harmless[i]!.html));
          expect(links(email.text)).toBe(links(harmless[i]!.text));
          // Each user field is bounded: the parts cannot grow without end.
          expect(email.text.length).toBeLessThan(harmless[i]!.text.length + 2_500);
        });
      }),
      RUNS,
    );
  });

  it('keep a booking alert free of Slack markup and within its bounds', () => {
    const parsed = parseBookingEvent(JSON.parse(readFileSync('tests/fixtures/webhooks/calcom-booking-created.json', 'utf8')));
    if (!parsed.handled) throw new Error('fixture not handled');
    fc.assert(
      fc.property(anyHostile, anyHostile, anyHostile, (name, title, reason) => {
        const text = alertText({ ...parsed.event, change: 'cancelled', title, invitee: { name, email: `${name}@x.example` }, cancellation: { reason } }, name);
        expect(text).not.toMatch(CHAT_MARKUP);
        for (const linkish of LINKISH) expect(text).not.toMatch(linkish);
        expect(text.replaceAll('\u200b', '')).not.toMatch(HEADER_BREAKER);
        expect(text.length).toBeLessThan(2_000);
      }),
      RUNS,
    );
  });
});
