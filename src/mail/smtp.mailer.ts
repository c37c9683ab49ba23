import { createTransport } from 'nodemailer';
import { Mailer, MailerError, OutgoingEmail } from './mailer';

/** How long a connection, the greeting and each reply may take. */
const TIMEOUT_MS = 10_000;

interface SmtpFailure {
  message: string;
  responseCode?: number;
}

/**
 * An SMTP server through nodemailer (EMAIL_SMTP_URL: `smtp://user:pass@host:587` upgrades with
 * STARTTLS when offered, `smtps://…:465` is TLS from the start). A 4xx reply is the server's "try
 * later", a 5xx one a refusal; no connection or no reply is retried.
 */
export class SmtpMailer extends Mailer {
  readonly name = 'smtp';
  readonly delivers = true;
  private readonly transport: ReturnType<typeof createTransport>;

  constructor(url: string) {
    super();
    this.transport = createTransport({ url, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS });
  }

  async send(email: OutgoingEmail): Promise<string | null> {
    try {
      const info = await this.transport.sendMail({
        from: email.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
      });
      return info.messageId ?? null;
    } catch (error) {
      const failure = error as SmtpFailure;
      const code = failure.responseCode;
      // The reply, never the URL: nodemailer's messages do not carry the credentials.
      if (code !== undefined) throw new MailerError(`The SMTP server answered ${code}: ${failure.message}`, code < 500);
      throw new MailerError(`The SMTP server could not be reached: ${failure.message}`, true);
    }
  }

  override close(): void {
    this.transport.close();
  }
}
