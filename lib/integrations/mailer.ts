/** An e-mail with text and HTML parts, sent at most once per idempotency key. */
export interface OutgoingEmail {
  to: string | string[];
  subject: string;
  html: string;
  text: string;
  /** Same key, same e-mail: a retry never sends twice (the vendor remembers keys for 24 h). */
  idempotencyKey: string;
  /** What kind of e-mail this is, e.g. "verify-email"; used as a tag and in error messages. */
  kind: string;
  replyTo?: string;
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<{ id: string }>;
}
