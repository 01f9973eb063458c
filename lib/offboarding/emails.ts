// The e-mail an account's owners get when it closes: what was taken back,
// what is kept, how to ask for their data, and how to come back. User fields
// go through lib/text.ts, as in every e-mail of the service.
import type { Account } from '../accounts/accounts.ts';
import type { EmailContent } from '../integrations/email-layout.ts';
import { layout, subject } from '../integrations/email-layout.ts';
import { emailField, escapeHtml } from '../text.ts';

export function closingEmail(account: Account, options: { reason: string; replyTo?: string; portalLink: string }): EmailContent {
  const company = emailField(account.company_name || 'your company');
  const reason = emailField(options.reason);
  const ask = options.replyTo ? `write to ${options.replyTo}` : 'reply to this e-mail';
  const lines = [
    `The account of ${company.text} is closed (${reason.text}).`,
    'Your shared folder link no longer works and your projects are archived, not deleted: we keep your files and records until you ask us to erase them.',
    `For a copy of your files or of the data we hold about you, or to have it erased, ${ask}.`,
    `To come back, sign in at ${options.portalLink} and reopen the account: everything archived is restored.`,
  ];
  return {
    subject: subject(`Your account for ${company.line} is closed`),
    text: `${lines.join('\n\n')}\n`,
    html: layout(`Your account for ${company.html} is closed`, [
      `The account is closed (${reason.html}).`,
      ...lines.slice(1, 3).map(escapeHtml),
      escapeHtml('To come back, sign in and reopen the account: everything archived is restored.'),
    ], { label: 'Sign in', url: options.portalLink }),
  };
}
