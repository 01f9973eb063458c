// The e-mails authentication sends through Resend, each with a text and an
// HTML part carrying the same link. The only user text in them, a signup's
// name, goes through lib/text.ts: one bounded line, HTML-escaped in the HTML
// part, with nothing in it a mail client would make a link of in the text part.
import { emailField, escapeHtml } from '../text.ts';

interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** Paragraphs already escaped for HTML, then the action link. */
function layout(htmlParagraphs: string[], link: string, action: string): string {
  const body = htmlParagraphs.map((p) => `<p>${p}</p>`).join('\n');
  return `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; line-height: 1.5">
${body}
<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>
<p style="color:#666">If the button does not work, copy this address into your browser:<br>${escapeHtml(link)}</p>
</body></html>`;
}

export function verificationEmail(link: string, validHours: number, name?: string): EmailContent {
  const who = emailField(name);
  const rest = ['Please confirm your e-mail address to finish creating your account.', `The link works once and for ${validHours} hours.`];
  // Whoever signed up chose the password: a reader who did not must not confirm it for them, and can take the
  // address back by signing up themselves (a signup contests an unconfirmed registration, sign-up.ts).
  const closing = 'If you did not sign up, do not follow this link: whoever did chose the password. Ignore this e-mail, or sign up yourself to take the address back.';
  return {
    subject: 'Confirm your e-mail address',
    text: `${[who.line ? `Hello ${who.text},` : 'Hello,', ...rest].join('\n\n')}\n\n${link}\n\n${closing}\n`,
    html: layout([who.line ? `Hello ${who.html},` : 'Hello,', ...[...rest, closing].map(escapeHtml)], link, 'Confirm my e-mail address'),
  };
}

export function passwordResetEmail(link: string, validMinutes: number): EmailContent {
  const lines = ['Hello,', 'We received a request to reset the password of your account.', `The link works once and for ${validMinutes} minutes.`];
  const closing = 'If you did not ask for this, ignore this e-mail: your password stays as it is.';
  return {
    subject: 'Reset your password',
    text: `${lines.join('\n\n')}\n\n${link}\n\n${closing}\n`,
    html: layout([...lines, closing].map(escapeHtml), link, 'Choose a new password'),
  };
}

/**
 * What an address whose registration is unfinished gets when someone signs
 * up with it again: the earlier confirmation links no longer work, and the
 * password is chosen anew through a recovery link, by whoever reads this
 * mailbox (not whoever signed up first).
 */
export function unfinishedSignupEmail(link: string, validMinutes: number): EmailContent {
  const lines = [
    'Hello,',
    'Someone tried to sign up with this e-mail address, which already has a registration that was never finished. The confirmation links sent before no longer work.',
    `To finish it, choose your password with this link. It works once and for ${validMinutes} minutes.`,
  ];
  const closing = 'If it was not you, ignore this e-mail: nobody can sign in with this address until a password is chosen here.';
  return {
    subject: 'Finish signing up',
    text: `${lines.join('\n\n')}\n\n${link}\n\n${closing}\n`,
    html: layout([...lines, closing].map(escapeHtml), link, 'Choose my password'),
  };
}

/**
 * What an address with no account gets when someone asks to reset its
 * password: the same send as a reset e-mail (so the request's timing tells
 * nothing), and useful to whoever owns the address.
 */
export function noAccountEmail(signupLink: string): EmailContent {
  const lines = [
    'Hello,',
    'Someone asked to reset the password of an account with this e-mail address, but no account uses this address.',
    'If it was you, you may have signed up with another address: ask for the reset with that one. Or create an account with this address:',
  ];
  const closing = 'If you did not ask for this, ignore this e-mail: nothing has changed.';
  return {
    subject: 'No account for this e-mail address',
    text: `${lines.join('\n\n')}\n\n${signupLink}\n\n${closing}\n`,
    html: layout([...lines, closing].map(escapeHtml), signupLink, 'Create an account'),
  };
}

/**
 * To an address whose sign-ins were paused after too many failed logins. Sent
 * alike whether or not the address has an account (the login never tells),
 * so it speaks to both; it links to forgot-password, which works meanwhile.
 */
export function signInsPausedEmail(forgotPasswordLink: string, failures: number, pausedMinutes: number): EmailContent {
  const lines = [
    'Hello,',
    `There were ${failures} failed attempts to sign in with this e-mail address, so sign-ins with it are paused for up to ${pausedMinutes} minutes: until then even the right password is refused.`,
    'If you have an account with us and it was not you, nobody signed in: the password held. If you no longer know your password, you can reset it now.',
  ];
  const closing = 'If you have no account with us, ignore this e-mail.';
  return {
    subject: 'Too many failed sign-ins',
    text: `${lines.join('\n\n')}\n\n${forgotPasswordLink}\n\n${closing}\n`,
    html: layout([...lines, closing].map(escapeHtml), forgotPasswordLink, 'Reset my password'),
  };
}
