import { parseRetryAfter } from '../common/retry-after';
import { Mailer, MailerError, OutgoingEmail } from './mailer';

const TIMEOUT_MS = 10_000;
/** Of a provider's answer, what an error message quotes at most. */
const EXCERPT = 300;

interface ApiAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * The e-mail providers' HTTP APIs (EMAIL_API_KEY; EMAIL_API_BASE_URL overrides the address). A 2xx
 * sends; 429 and 5xx (and no answer) are retried, a 429's Retry-After respected; any other 4xx is
 * a refusal and the e-mail fails, with the provider's own reason.
 */
abstract class HttpApiMailer extends Mailer {
  readonly delivers = true;

  constructor(
    protected readonly baseUrl: string,
    protected readonly apiKey: string,
  ) {
    super();
  }

  protected async post(path: string, headers: Record<string, string>, body: unknown): Promise<ApiAnswer> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new MailerError(`${this.title} could not be reached: ${(error as Error).message}`, true);
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const answer: ApiAnswer = {
      status: response.status,
      headers: response.headers,
      body: typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {},
    };
    if (response.status >= 200 && response.status < 300) return answer;
    const reason = this.reasonOf(answer) ?? (text.slice(0, EXCERPT) || 'no reason given');
    throw new MailerError(
      `${this.title} answered ${response.status}: ${reason.slice(0, EXCERPT)}`,
      response.status === 429 || response.status >= 500 || this.isTransient(answer),
      response.status === 429 ? parseRetryAfter(response.headers.get('retry-after')) : null,
    );
  }

  /** The provider's name in messages. */
  protected abstract readonly title: string;
  /** The reason an error answer gives, in the provider's own words. */
  protected abstract reasonOf(answer: ApiAnswer): string | null;
  /** A 4xx that means "later" for this provider. */
  protected isTransient(_answer: ApiAnswer): boolean {
    return false;
  }
}

/** `POST /email` with `X-Postmark-Server-Token`; answers `{"MessageID", "ErrorCode": 0, "Message": "OK", …}`, errors `{"ErrorCode", "Message"}`. */
export class PostmarkMailer extends HttpApiMailer {
  readonly name = 'postmark';
  protected readonly title = 'Postmark';

  async send(email: OutgoingEmail): Promise<string | null> {
    const answer = await this.post(
      '/email',
      { 'x-postmark-server-token': this.apiKey },
      {
        From: email.from,
        To: email.to,
        Subject: email.subject,
        TextBody: email.text,
        HtmlBody: email.html,
        MessageStream: 'outbound',
      },
    );
    const errorCode = answer.body.ErrorCode;
    if (typeof errorCode === 'number' && errorCode !== 0) throw new MailerError(`Postmark refused it: ${this.reasonOf(answer)}`, false);
    return typeof answer.body.MessageID === 'string' ? answer.body.MessageID : null;
  }

  protected reasonOf({ body }: ApiAnswer): string | null {
    if (typeof body.Message !== 'string') return null;
    return typeof body.ErrorCode === 'number' ? `(#${body.ErrorCode}) ${body.Message}` : body.Message;
  }
}

/** `POST /v3/mail/send` with the bearer key; answers 202 with no body and `X-Message-Id`, errors `{"errors": [{"message", "field", "help"}]}`. */
export class SendGridMailer extends HttpApiMailer {
  readonly name = 'sendgrid';
  protected readonly title = 'SendGrid';

  async send(email: OutgoingEmail): Promise<string | null> {
    const answer = await this.post(
      '/v3/mail/send',
      { authorization: `Bearer ${this.apiKey}` },
      {
        personalizations: [{ to: [{ email: email.to }] }],
        from: { email: email.from },
        subject: email.subject,
        // text/plain first: SendGrid requires that order.
        content: [
          { type: 'text/plain', value: email.text },
          { type: 'text/html', value: email.html },
        ],
      },
    );
    return answer.headers.get('x-message-id');
  }

  protected reasonOf({ body }: ApiAnswer): string | null {
    const errors = Array.isArray(body.errors) ? (body.errors as { message?: unknown; field?: unknown }[]) : [];
    const reasons = errors
      .filter((error) => typeof error.message === 'string')
      .map((error) =>
        typeof error.field === 'string' && error.field ? `${error.field}: ${String(error.message)}` : String(error.message),
      );
    return reasons.length > 0 ? reasons.join('; ') : null;
  }
}

/**
 * `POST /emails` with the bearer key and an `Idempotency-Key` (the e-mail's id), so a retry after
 * a lost answer is not sent twice; answers `{"id"}`, errors `{"statusCode", "message", "name"}`.
 */
export class ResendMailer extends HttpApiMailer {
  readonly name = 'resend';
  protected readonly title = 'Resend';

  async send(email: OutgoingEmail): Promise<string | null> {
    const answer = await this.post(
      '/emails',
      { authorization: `Bearer ${this.apiKey}`, 'idempotency-key': `team-inbox/${email.id}` },
      { from: email.from, to: [email.to], subject: email.subject, text: email.text, html: email.html },
    );
    return typeof answer.body.id === 'string' ? answer.body.id : null;
  }

  protected reasonOf({ body }: ApiAnswer): string | null {
    if (typeof body.message !== 'string') return null;
    return typeof body.name === 'string' ? `${body.name}: ${body.message}` : body.message;
  }

  /** The first attempt with the same key is still being processed: try again later. */
  protected override isTransient({ status, body }: ApiAnswer): boolean {
    return status === 409 && body.name === 'concurrent_idempotent_requests';
  }
}
