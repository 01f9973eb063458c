// Text from a user (a form, a signup, a booking) is data wherever it leaves the
// service; every e-mail header, e-mail body and chat message runs each user
// field through these rules, so none can add a header, line, mention or link:
//   oneLine      bounded, one line, no control or invisible characters (safe in a subject)
//   headerValue  the same for an HTTP header value, unbounded
//   escapeHtml / inertLinks   an e-mail's HTML part / its text part (no link)
//   chatText     Slack text and mrkdwn, & < > escaped (no <!channel>, <@user>, <url|label>)
//   chatField    a user field for Slack: one line, escaped and inert
//   markdownField  ClickUp's markdown: one line, ASCII punctuation escaped, no link

/** The length a field may take in an e-mail or a chat message, in characters. */
export const TEXT_LIMITS = {
  /** A person's or a company's name, a plan, a phone number, a meeting title. */
  name: 120,
  /** RFC 5321's path limit. */
  email: 254,
  /** A website, shown as text, never as a link. */
  url: 300,
  /** A free-text line: a cancellation reason, a location. */
  line: 300,
  /** A whole subject line. */
  subject: 200,
} as const;

// C0 and C1 controls (CR, LF, tab, NUL, ESC, NEL, DEL), the line and
// paragraph separators, and the invisible formatting characters (bidi
// overrides and isolates, zero-width space, soft hyphen, BOM), which can make
// what is read differ from what is there. Zero-width joiner and non-joiner stay:
// emoji sequences and several scripts need them.
const CONTROL_OR_INVISIBLE = /(?:(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}])+/gu;
const ELLIPSIS = '…';

/** At most `max` characters (code points, never half a surrogate pair), with … where it was cut. */
export function bounded(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return max < 1 ? '' : `${chars.slice(0, max - 1).join('').trimEnd()}${ELLIPSIS}`;
}

/**
 * One line of at most `max` characters: every control, separator or
 * invisible formatting character becomes a space, runs of white space one
 * space, the ends trimmed, a lone surrogate U+FFFD. Safe in any header.
 */
export function oneLine(text: string | null | undefined, max: number = TEXT_LIMITS.name): string {
  if (!text) return '';
  const line = text.toWellFormed().replace(CONTROL_OR_INVISIBLE, ' ').replace(/\s+/g, ' ').trim();
  return bounded(line, max);
}

/**
 * An HTTP header value as built, with every control, separator or invisible
 * formatting character made a space: nothing in it can end the header or
 * start another. Unlike oneLine, neither bounded nor collapsed.
 */
export const headerValue = (value: string) => value.toWellFormed().replace(CONTROL_OR_INVISIBLE, ' ').trim();

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** For an HTML text node or a quoted attribute value. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch]!);

// What a mail client turns into a link in plain text: a scheme, "www.", or a
// dot between two word characters (example.com, a@example.com). The ideographic
// and full-width full stops count: IDNA reads them as dots.
const SCHEME = /(https?|ftps?|sftp|mailto|tel|sms|file|data|javascript|vbscript|ssh|irc|news|slack)(:)/giu;
const ANY_SCHEME_SLASHES = /([\p{L}\p{N}+.-])(:)(?=\/\/)/gu;
const WWW = /(www)([.\u3002\uff0e\uff61])/giu;
const DOMAIN_DOT = /([\p{L}\p{N}])([.\u3002\uff0e\uff61@])(?=[\p{L}\p{N}])/gu;
/** Invisible, and not part of any URL or address: it ends what a linkifier would take. */
const BREAK = '\u200b';

/**
 * For the text part of an e-mail: what a user wrote keeps its look, but no
 * scheme, "www." or domain in it is one a mail client would make a link of (a
 * zero-width space follows each such colon and dot). Apply after oneLine.
 */
export function inertLinks(text: string): string {
  return text
    .replace(SCHEME, `$1$2${BREAK}`)
    .replace(ANY_SCHEME_SLASHES, `$1$2${BREAK}`)
    .replace(WWW, `$1$2${BREAK}`)
    .replace(DOMAIN_DOT, `$1$2${BREAK}`);
}

/**
 * Slack's three control characters, escaped as its formatting reference asks,
 * for `text`, mrkdwn and plain_text alike: the user's < and > never open a
 * mention, channel link, special command or labelled link.
 */
export const chatText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A user field for a chat message: one line, escaped, with no scheme, "www."
 * or domain Slack would make a link of (Slack detects URLs in a message's
 * plain text itself, top-level text included), and at most `max` characters
 * as sent (an escaped & takes five), cut short with … if need be.
 */
export function chatField(text: string | null | undefined, max: number = TEXT_LIMITS.name): string {
  const line = oneLine(text, max);
  const sent = (l: string) => chatText(inertLinks(l));
  let escaped = sent(line);
  for (let keep = Array.from(line).length - 1; escaped.length > max && keep >= 0; keep--) escaped = sent(bounded(line, keep));
  return escaped;
}

/**
 * A Block Kit mrkdwn text object that carries users' fields: `verbatim`, so
 * Slack neither links URLs nor names in it (Block Kit reference, text object);
 * a link of ours in it is written as one, `<url>`.
 */
export const chatMrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true }) as const;

/** A user field for an e-mail, ready for each part. */
export function emailField(value: string | null | undefined, max: number = TEXT_LIMITS.name): { line: string; text: string; html: string } {
  const line = oneLine(value, max);
  return { line, text: inertLinks(line), html: escapeHtml(line) };
}

// The marks that make markdown structure inside a line: emphasis, code, links
// and images (their parentheses mean nothing without the brackets), HTML and
// autolinks, tables, strikethrough, and the escape itself. A field is one line
// and never starts one, so line-start marks (#, -, +, >, 1.) stay as typed.
// CommonMark reads a backslash-escaped ASCII punctuation mark as itself
// (spec, "Backslash escapes").
const MARKDOWN_INLINE = /[\\`*_[\]<>|~]/g;

/**
 * A user field for markdown the task tool renders, placed inside a line of
 * ours: one line of at most `max` characters, every inline mark escaped (so
 * no link, image, emphasis, code or HTML comes from the user), and no scheme,
 * "www." or domain a renderer would turn into a link.
 */
export function markdownField(text: string | null | undefined, max: number = TEXT_LIMITS.name): string {
  return inertLinks(oneLine(text, max)).replace(MARKDOWN_INLINE, '\\$&');
}
