// Users of the local stack, made the way a person would: sign up, follow the
// verification e-mail, log in.
import { expect } from 'vitest';
import { api, randomLoopbackIp, recorded, stack, type Reply } from './http.ts';

export const PASSWORD = 'Secret123';
export const newEmail = () => `${crypto.randomUUID()}@example.com`;
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface MailboxEmail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  tags?: { name: string; value: string }[];
}

/** A caller from a client IP of its own, so rate limits of one test never touch another. */
export function client() {
  const fromIp = randomLoopbackIp();
  return {
    post: (path: string, body?: unknown, headers?: Record<string, string>) => api(path, { method: 'POST', body, headers, fromIp }),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => api(path, { method: 'PATCH', body, headers, fromIp }),
    delete: (path: string, headers?: Record<string, string>) => api(path, { method: 'DELETE', headers, fromIp }),
    get: (path: string, headers?: Record<string, string>) => api(path, { headers, fromIp }),
  };
}
export type Client = ReturnType<typeof client>;

/** The e-mails Resend was asked to send to this address, newest first. */
export async function mailTo(email: string): Promise<MailboxEmail[]> {
  return (await recorded<MailboxEmail[]>('emails')).filter((m) => m.to.includes(email));
}

/** The reset link of the newest reset e-mail (or other e-mail with a recovery link) to this address, followed as a browser would. */
export async function followResetLink(email: string, subject = 'Reset your password') {
  const [mail] = (await mailTo(email)).filter((m) => m.subject === subject);
  if (!mail) throw new Error(`no e-mail '${subject}' to ${email}`);
  const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(mail.text)![0];
  expect(mail.html).toContain(link.replaceAll('&', '&amp;'));
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const landing = new URL(res.headers.get('location')!);
  const hash = new URLSearchParams(landing.hash.slice(1));
  return { landing: `${landing.origin}${landing.pathname}`, token: hash.get('access_token'), type: hash.get('type'), error: hash.get('error_code') };
}

export async function verificationToken(email: string): Promise<string> {
  const portal = stack().env.PORTAL_URL!;
  const [mail] = (await mailTo(email)).filter((m) => m.subject === 'Confirm your e-mail address');
  if (!mail) throw new Error(`no verification e-mail to ${email}`);
  const match = new RegExp(`${portal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/verify\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!match) throw new Error(`no verification link in: ${mail.text}`);
  return match[1]!;
}

export async function verifiedUser(c: Client, companyName?: string, email = newEmail()) {
  const signup = await c.post('/api/auth/signup', { email, password: PASSWORD, ...(companyName ? { metadata: { companyName, name: 'Ada' } } : {}) });
  expect(signup.status).toBe(201);
  const verified = await c.post('/api/verify-email', { token: await verificationToken(email) });
  expect(verified.status).toBe(200);
  return { email, verified: verified.body };
}

export async function logIn(c: Client, email: string, password = PASSWORD): Promise<Reply> {
  return c.post('/api/auth/login', { email, password });
}

/** A verified user with a fresh access token. */
export async function signedInUser(options: { companyName?: string; email?: string } = {}) {
  const c = client();
  const { email } = await verifiedUser(c, options.companyName, options.email);
  const login = await logIn(c, email);
  expect(login.status).toBe(200);
  return { email, accessToken: login.body.session.access_token as string, user: login.body.user, client: c };
}
