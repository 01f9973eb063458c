// How every e-mail of the service is laid out: a text and an HTML part, a
// one-line subject, our own words escaped here.
import { escapeHtml, oneLine, TEXT_LIMITS } from '../text.ts';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** Our own words, escaped here; user fields arrive already escaped (their .html). Every e-mail of the service is laid out so. */
export const layout = (titleHtml: string, paragraphsHtml: string[], action?: { label: string; url: string }) =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:560px;margin:auto;color:#222">` +
  `<h1 style="font-size:20px">${titleHtml}</h1>` +
  paragraphsHtml.map((p) => `<p>${p}</p>`).join('') +
  (action ? `<p><a href="${escapeHtml(action.url)}" style="background:#222;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>` : '') +
  `</body></html>`;

export const subject = (text: string) => oneLine(text, TEXT_LIMITS.subject);
