import { simpleParser } from 'mailparser';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** An e-mail as a test reads it back, whichever way it came. */
export interface ReceivedEmail {
  /** How it came: smtp, postmark, sendgrid or resend. */
  via: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The first link in the e-mail's text that starts with `<base><path>`, and its `token`. */
export function linkIn(email: ReceivedEmail, base: string, path: string): { url: string; token: string } {
  const match = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${path}\\?token=([A-Za-z0-9_-]+)`).exec(email.text);
  if (!match) throw new Error(`no ${path} link in the e-mail "${email.subject}": ${email.text}`);
  return { url: match[0], token: match[1] };
}

/** Polls until `check` answers something other than undefined (a marker, never a fixed sleep). */
async function waitUntil<T>(what: string, check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Received e-mails, and ways to wait for them. */
abstract class Mailbox {
  readonly received: ReceivedEmail[] = [];

  /** Every e-mail received for this address (other tests' may be arriving too). */
  to(address: string): ReceivedEmail[] {
    return this.received.filter((email) => email.to.toLowerCase() === address.toLowerCase());
  }

  /** Waits until `count` e-mails to the address have arrived; answers them. */
  waitFor(address: string, count = 1): Promise<ReceivedEmail[]> {
    return waitUntil(`${count} e-mail(s) to ${address}`, () => (this.to(address).length >= count ? this.to(address) : undefined));
  }
}

/**
 * A real SMTP server on loopback (the `smtp-server` package), parsing what it receives with
 * `mailparser`. Plain SMTP with AUTH allowed without TLS (loopback only); `failNext` makes the
 * next deliveries answer an SMTP error code (4xx: "try later", 5xx: refused).
 */
export class SmtpTestServer extends Mailbox {
  /** The credentials of the AUTH the client gave, per delivery. */
  readonly logins: { username: string; password: string }[] = [];
  private readonly failures: { code: number; message: string }[] = [];
  private readonly server: SMTPServer;

  private constructor(credentials: { username: string; password: string }) {
    super();
    this.server = new SMTPServer({
      logger: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: false,
      onAuth: (auth, _session, callback) => {
        this.logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
        if (auth.username === credentials.username && auth.password === credentials.password) callback(null, { user: auth.username });
        else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onData: (stream, _session, callback) => {
        void simpleParser(stream).then(
          (parsed) => {
            const failure = this.failures.shift();
            if (failure) {
              callback(Object.assign(new Error(failure.message), { responseCode: failure.code }));
              return;
            }
            const address = (value: typeof parsed.to) => [value ?? []].flat().flatMap((entry) => entry.value.map((a) => a.address ?? ''));
            for (const to of address(parsed.to)) {
              this.received.push({
                via: 'smtp',
                from: address(parsed.from)[0] ?? '',
                to,
                subject: parsed.subject ?? '',
                text: parsed.text ?? '',
                html: typeof parsed.html === 'string' ? parsed.html : '',
              });
            }
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
  }

  static async start(credentials = { username: 'inbox', password: 'smtp-test-password-4d1' }): Promise<SmtpTestServer> {
    const smtp = new SmtpTestServer(credentials);
    await new Promise<void>((resolve) => smtp.server.listen(0, '127.0.0.1', resolve));
    return smtp;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  /** EMAIL_SMTP_URL for the app: these credentials on this server. */
  url(credentials = { username: 'inbox', password: 'smtp-test-password-4d1' }): string {
    return `smtp://${credentials.username}:${credentials.password}@127.0.0.1:${this.port}`;
  }

  /** The next deliveries answer these SMTP replies, in order (451: try later; 550: refused). */
  failNext(...failures: { code: number; message: string }[]): void {
    this.failures.push(...failures);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** One request to a provider's API, as it came. */
export interface ProviderRequest {
  provider: 'postmark' | 'sendgrid' | 'resend';
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface ProviderAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Postmark, SendGrid and Resend on loopback, each on the path and with the authentication,
 * request and answer shapes of its real API (EMAIL_API_BASE_URL points the app here):
 * - Postmark `POST /email`, `X-Postmark-Server-Token`; 200 `{"To", "SubmittedAt", "MessageID",
 *   "ErrorCode": 0, "Message": "OK"}`; errors `{"ErrorCode", "Message"}` (401, 422).
 * - SendGrid `POST /v3/mail/send`, `Authorization: Bearer`; 202 with no body and `X-Message-Id`;
 *   errors `{"errors": [{"message", "field", "help"}]}` (400, 401).
 * - Resend `POST /emails`, `Authorization: Bearer`, optional `Idempotency-Key` (the same key
 *   answers the first id again and sends nothing); 200 `{"id"}`; errors `{"statusCode",
 *   "message", "name"}` (401, 403, 422).
 * `failNext` queues answers (a 500, a 429, a 422) before the real behaviour resumes.
 */
export class FakeEmailApi extends Mailbox {
  readonly requests: ProviderRequest[] = [];
  private readonly queued: ProviderAnswer[] = [];
  private readonly idempotency = new Map<string, string>();
  private readonly server: Server = createServer((request, response) => {
    void this.handle(request).then(({ status, body, headers }) => {
      response.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }), ...headers });
      response.end(body === undefined ? undefined : JSON.stringify(body));
    });
  });

  private constructor(readonly apiKey: string) {
    super();
  }

  static async start(apiKey = 'provider-test-key-8c3e71'): Promise<FakeEmailApi> {
    const fake = new FakeEmailApi(apiKey);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next requests (any provider) get these answers, in order. */
  failNext(...answers: ProviderAnswer[]): void {
    this.queued.push(...answers);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage): Promise<ProviderAnswer> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = request.url ?? '';
    const provider = path === '/email' ? 'postmark' : path === '/v3/mail/send' ? 'sendgrid' : path === '/emails' ? 'resend' : null;
    if (request.method !== 'POST' || provider === null) return { status: 404, body: { message: 'Not found' } };
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.invalid(provider, 'The request body is not valid JSON');
    }
    this.requests.push({ provider, path, headers: request.headers, body });
    const unauthorized = this.authenticate(provider, request);
    if (unauthorized) return unauthorized;
    const queued = this.queued.shift();
    if (queued) return queued;
    switch (provider) {
      case 'postmark':
        return this.postmark(body);
      case 'sendgrid':
        return this.sendgrid(body);
      case 'resend':
        return this.resend(body, request.headers['idempotency-key']);
    }
  }

  private authenticate(provider: ProviderRequest['provider'], request: IncomingMessage): ProviderAnswer | null {
    if (provider === 'postmark') {
      return request.headers['x-postmark-server-token'] === this.apiKey
        ? null
        : { status: 401, body: { ErrorCode: 10, Message: 'Request does not contain a valid Server token.' } };
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearer === this.apiKey) return null;
    if (provider === 'sendgrid') {
      return {
        status: 401,
        body: { errors: [{ message: 'The provided authorization grant is invalid, expired, or revoked', field: null, help: null }] },
      };
    }
    return bearer === undefined
      ? { status: 401, body: { statusCode: 401, message: 'Missing API key in the authorization header', name: 'missing_api_key' } }
      : { status: 403, body: { statusCode: 403, message: 'API key is invalid', name: 'invalid_api_key' } };
  }

  private invalid(provider: ProviderRequest['provider'], message: string): ProviderAnswer {
    if (provider === 'postmark') return { status: 422, body: { ErrorCode: 300, Message: `Invalid email request: ${message}` } };
    if (provider === 'sendgrid') return { status: 400, body: { errors: [{ message, field: null, help: null }] } };
    return { status: 422, body: { statusCode: 422, message, name: 'validation_error' } };
  }

  private postmark(body: Record<string, unknown>): ProviderAnswer {
    const { From, To, Subject, TextBody, HtmlBody } = body;
    if (
      typeof From !== 'string' ||
      typeof To !== 'string' ||
      typeof Subject !== 'string' ||
      (typeof TextBody !== 'string' && typeof HtmlBody !== 'string')
    ) {
      return this.invalid('postmark', 'From, To, Subject and TextBody or HtmlBody are required');
    }
    this.received.push({
      via: 'postmark',
      from: From,
      to: To,
      subject: Subject,
      text: String(TextBody ?? ''),
      html: String(HtmlBody ?? ''),
    });
    return { status: 200, body: { To, SubmittedAt: new Date().toISOString(), MessageID: randomUUID(), ErrorCode: 0, Message: 'OK' } };
  }

  private sendgrid(body: Record<string, unknown>): ProviderAnswer {
    const personalizations = body.personalizations as { to?: { email?: string }[] }[] | undefined;
    const to = personalizations?.[0]?.to?.[0]?.email;
    const from = (body.from as { email?: string } | undefined)?.email;
    const content = body.content as { type: string; value: string }[] | undefined;
    if (!to)
      return this.invalid(
        'sendgrid',
        'The to array is required for all personalization objects, and must have at least one email object with a valid email address.',
      );
    if (!from || typeof body.subject !== 'string' || !content?.length)
      return this.invalid('sendgrid', 'The from, subject and content fields are required.');
    if (content[0].type !== 'text/plain' && content.some((part) => part.type === 'text/plain')) {
      return this.invalid('sendgrid', 'If present, text/plain content must be first, followed by any other content.');
    }
    const part = (type: string) => content.find((entry) => entry.type === type)?.value ?? '';
    this.received.push({ via: 'sendgrid', from, to, subject: body.subject, text: part('text/plain'), html: part('text/html') });
    return { status: 202, headers: { 'x-message-id': randomUUID().replace(/-/g, '').slice(0, 22) } };
  }

  private resend(body: Record<string, unknown>, key: string | string[] | undefined): ProviderAnswer {
    const to = Array.isArray(body.to) ? (body.to as string[]) : typeof body.to === 'string' ? [body.to] : [];
    if (typeof body.from !== 'string' || to.length === 0 || typeof body.subject !== 'string') {
      return {
        status: 422,
        body: { statusCode: 422, message: 'Missing required fields: from, to, subject', name: 'missing_required_field' },
      };
    }
    if (typeof key === 'string') {
      const earlier = this.idempotency.get(key);
      if (earlier) return { status: 200, body: { id: earlier } };
    }
    const id = randomUUID();
    if (typeof key === 'string') this.idempotency.set(key, id);
    for (const address of to) {
      this.received.push({
        via: 'resend',
        from: body.from,
        to: address,
        subject: body.subject,
        text: String(body.text ?? ''),
        html: String(body.html ?? ''),
      });
    }
    return { status: 200, body: { id } };
  }
}
