// The onboarding e-mails: each with a text and an HTML part. Everything that
// came from a user goes through lib/text.ts: one bounded line (so a subject
// stays one clean header), HTML-escaped in the HTML part, and in the text
// part with nothing a mail client would make a link of.
import type { Account } from '../accounts/accounts.ts';
import { layout, subject, type EmailContent } from '../integrations/email-layout.ts';
import { emailField, escapeHtml, TEXT_LIMITS } from '../text.ts';

const companyOf = (account: Account) => emailField(account.company_name || 'your company');

export function welcomeEmail(account: Account, portalLink: string): EmailContent {
  const company = companyOf(account);
  return {
    subject: subject(`Welcome aboard, ${company.line}`),
    text: `Welcome aboard, ${company.text}!\n\nYour client portal is ready: ${portalLink}\nWe'll be in touch shortly to book the kick-off call.\n`,
    html: layout(`Welcome aboard, ${company.html}`, ['Your client portal is ready.', "We'll be in touch shortly to book the kick-off call."].map(escapeHtml), {
      label: 'Open your portal',
      url: portalLink,
    }),
  };
}

export function storageReadyEmail(account: Account, storageLink: string): EmailContent {
  return {
    subject: subject(`Your shared workspace for ${companyOf(account).line} is ready`),
    text: `Your shared file workspace is ready: ${storageLink}\nPut brand assets, content and documents there; we'll find them.\n`,
    html: layout(escapeHtml('Your shared workspace is ready'), [escapeHtml("Put brand assets, content and documents there; we'll find them.")], {
      label: 'Open the workspace',
      url: storageLink,
    }),
  };
}

export function newClientTeamEmail(account: Account, portalLink: string): EmailContent {
  const field = (value: string | undefined, max?: number) => emailField(value || '-', max);
  const company = field(account.company_name);
  const contact = field(account.contact_email, TEXT_LIMITS.email);
  const phone = account.phone ? field(account.phone) : undefined;
  const website = field(account.company_url, TEXT_LIMITS.url);
  const plan = field(account.plan ?? account.requested_plan);
  const title = account.company_name ? company : emailField(account.id);
  const lines = (part: 'text' | 'html', portal: string) => [
    `Company: ${company[part]}`,
    `Contact: ${contact[part]}${phone ? `, ${phone[part]}` : ''}`,
    `Website: ${website[part]}`,
    `Plan: ${plan[part]}`,
    `Portal: ${portal}`,
  ];
  return {
    subject: subject(`New client: ${title.line}`),
    text: `${lines('text', portalLink).join('\n')}\n`,
    html: layout(`New client: ${title.html}`, lines('html', escapeHtml(portalLink))),
  };
}
