// The invitation e-mail: a text and an HTML part carrying the same link. The
// company name and the inviter's address come from users, so they are made
// one bounded line (no control character can reach the subject) and escaped
// in the HTML.
import type { Role } from '../permissions.ts';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** One line of at most `max` characters, with no control characters: safe in a header. */
const oneLine = (s: string, max = 120) => {
  const line = s.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** In the text part a user's words must not read as a link: break what would be one. */
const inert = (s: string) => s.replace(/(https?|ftp|mailto):/gi, '$1\u200b:').replace(/www\./gi, 'www\u200b.');

export function invitationEmail(invite: { company?: string; inviter?: string; role: Role; link: string; validDays: number }): EmailContent {
  const company = oneLine(invite.company || 'an account');
  const by = invite.inviter ? `${oneLine(invite.inviter, 254)} invited you` : 'You are invited';
  const lines = [
    `${by} to join ${company} as ${invite.role === 'admin' ? 'an' : 'a'} ${invite.role}.`,
    `Sign in (or sign up) with this e-mail address, then accept. The invitation works once and for ${invite.validDays} days.`,
  ];
  return {
    subject: `Join ${company}`,
    text: `Hello,\n\n${lines.map(inert).join('\n\n')}\n\n${invite.link}\n\nIf you did not expect this, ignore this e-mail.\n`,
    html:
      `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:560px;margin:auto;color:#222">` +
      `<p>Hello,</p>${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}` +
      `<p><a href="${escapeHtml(invite.link)}">Accept the invitation</a></p>` +
      `<p style="color:#666">If you did not expect this, ignore this e-mail.</p></body></html>`,
  };
}
