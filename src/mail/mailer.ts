/** One e-mail as a provider sends it: plain text and HTML, from EMAIL_FROM. */
export interface OutgoingEmail {
  /** The outbound e-mail's id: the same on every attempt (Resend's Idempotency-Key). */
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * A provider's refusal or failure. `retryable`: 429, 5xx, a 4xx SMTP reply, no answer at all;
 * anything else (a 4xx of an HTTP API, a 5xx SMTP reply) is permanent and the e-mail fails.
 */
export class MailerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The provider asked to wait this long (Retry-After). */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'MailerError';
  }
}

/**
 * Who sends e-mail, chosen by EMAIL_PROVIDER: an SMTP server (nodemailer), the HTTP API of
 * Postmark, SendGrid or Resend, or, unset, nobody (`delivers` false: development writes each
 * e-mail to the log, and an invitation's link is answered to the admin). Only `mail/` knows which.
 */
export abstract class Mailer {
  /** What the README and the logs call it: smtp, postmark, sendgrid, resend or none. */
  abstract readonly name: string;
  /** Whether e-mail reaches anyone. */
  abstract readonly delivers: boolean;
  /** Sends one e-mail; answers the provider's message id if it gives one. Throws MailerError. */
  abstract send(email: OutgoingEmail): Promise<string | null>;
  /** Releases connections at shutdown. */
  close(): void {}
}
