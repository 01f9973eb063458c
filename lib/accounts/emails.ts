// The invitation e-mail: a text and an HTML part carrying the same link. The
// company name and the inviter's address come from users, so they go through
// lib/text.ts: one bounded line (no control character can reach the subject),
// escaped in the HTML, with nothing a mail client would link in the text.
import type { Role } from '../permissions.ts';
import { emailField, escapeHtml, oneLine, TEXT_LIMITS } from '../text.ts';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

export function invitationEmail(invite: { company?: string; inviter?: string; role: Role; link: string; validDays: number }): EmailContent {
  const company = emailField(invite.company || 'an account');
  const inviter = invite.inviter ? emailField(invite.inviter, TEXT_LIMITS.email) : undefined;
  const article = invite.role === 'admin' ? 'an' : 'a';
  const first = (part: 'text' | 'html') =>
    `${inviter ? `${inviter[part]} invited you` : 'You are invited'} to join ${company[part]} as ${article} ${invite.role}.`;
  const second = `Sign in (or sign up) with this e-mail address, then accept. The invitation works once and for ${invite.validDays} days.`;
  return {
    subject: oneLine(`Join ${company.line}`, TEXT_LIMITS.subject),
    text: `Hello,\n\n${first('text')}\n\n${second}\n\n${invite.link}\n\nIf you did not expect this, ignore this e-mail.\n`,
    html:
      `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:560px;margin:auto;color:#222">` +
      `<p>Hello,</p><p>${first('html')}</p><p>${escapeHtml(second)}</p>` +
      `<p><a href="${escapeHtml(invite.link)}">Accept the invitation</a></p>` +
      `<p style="color:#666">If you did not expect this, ignore this e-mail.</p></body></html>`,
  };
}

/**
 * To an account's owners, once per limit window: the account is past its
 * invitation limit, so invitations made for it (by its membership sync, say)
 * are kept but not e-mailed.
 */
export function invitationLimitEmail(notice: { company?: string; limit: number; windowMinutes: number }): EmailContent {
  const company = emailField(notice.company || 'your account');
  const body = (part: 'text' | 'html') => [
    `${company[part]} has sent as many invitation e-mails as it may: ${notice.limit} in ${notice.windowMinutes} minutes.`,
    'Invitations made for it from now on, such as those of its membership sync, are kept but not e-mailed: each invitee finds theirs on signing in with the invited address, and the account lists them.',
    'This notice is sent once in each such window.',
  ];
  return {
    subject: oneLine(`Invitation limit reached for ${company.line}`, TEXT_LIMITS.subject),
    text: `Hello,\n\n${body('text').join('\n\n')}\n`,
    html:
      `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:560px;margin:auto;color:#222">` +
      `<p>Hello,</p>${body('html')
        .map((p, i) => `<p>${i === 0 ? p : escapeHtml(p)}</p>`)
        .join('')}</body></html>`,
  };
}
