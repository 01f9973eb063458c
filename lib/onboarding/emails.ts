// The onboarding e-mails: each with a text and an HTML part. Everything that
// came from a user is escaped in the HTML.
import type { Account } from '../accounts/accounts.ts';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const layout = (title: string, paragraphs: string[], action?: { label: string; url: string }) =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:560px;margin:auto;color:#222">` +
  `<h1 style="font-size:20px">${escape(title)}</h1>` +
  paragraphs.map((p) => `<p>${escape(p)}</p>`).join('') +
  (action ? `<p><a href="${escape(action.url)}" style="background:#222;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escape(action.label)}</a></p>` : '') +
  `</body></html>`;

export function welcomeEmail(account: Account, portalLink: string): EmailContent {
  const company = account.company_name ?? 'your company';
  return {
    subject: `Welcome aboard, ${company}`,
    text: `Welcome aboard, ${company}!\n\nYour client portal is ready: ${portalLink}\nWe'll be in touch shortly to book the kick-off call.\n`,
    html: layout(`Welcome aboard, ${company}`, ['Your client portal is ready.', "We'll be in touch shortly to book the kick-off call."], {
      label: 'Open your portal',
      url: portalLink,
    }),
  };
}

export function storageReadyEmail(account: Account, storageLink: string): EmailContent {
  const company = account.company_name ?? 'your company';
  return {
    subject: `Your shared workspace for ${company} is ready`,
    text: `Your shared file workspace is ready: ${storageLink}\nPut brand assets, content and documents there; we'll find them.\n`,
    html: layout('Your shared workspace is ready', ["Put brand assets, content and documents there; we'll find them."], {
      label: 'Open the workspace',
      url: storageLink,
    }),
  };
}

export function newClientTeamEmail(account: Account, portalLink: string): EmailContent {
  const lines = [
    `Company: ${account.company_name ?? '-'}`,
    `Contact: ${account.contact_email ?? '-'}${account.phone ? `, ${account.phone}` : ''}`,
    `Website: ${account.company_url ?? '-'}`,
    `Plan: ${account.plan ?? account.requested_plan ?? '-'}`,
    `Portal: ${portalLink}`,
  ];
  return {
    subject: `New client: ${account.company_name ?? account.id}`,
    text: `${lines.join('\n')}\n`,
    html: layout(`New client: ${account.company_name ?? account.id}`, lines),
  };
}
