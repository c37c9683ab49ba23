import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface GraphRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | null;
  /** The whole answer has been written to the caller. */
  answered: boolean;
}

export interface GraphAnswer {
  status: number;
  body: unknown;
}

/**
 * A stand-in for the WhatsApp Cloud API on loopback. Sends answer 200 with a fresh `wamid`
 * unless answers were queued for the customer with `failNext`; the phone-number probe answers `healthStatus`.
 */
export class FakeGraphApi {
  readonly requests: GraphRequest[] = [];
  healthStatus = 200;
  /** Sends wait this long before answering (a slow Graph API). */
  sendDelayMs = 0;
  /** Answers queued per recipient (`to`, E.164 without +): other tests' sends may still be arriving. */
  private readonly queuedAnswers = new Map<string, GraphAnswer[]>();
  private sent = 0;

  private readonly server: Server = createServer((request, response) => {
    const record: GraphRequest = {
      method: request.method ?? '',
      path: '',
      authorization: request.headers.authorization,
      body: null,
      answered: false,
    };
    void this.handle(request, record).then(({ status, body }) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body), () => (record.answered = true));
    });
  });

  private constructor() {}

  static async start(): Promise<FakeGraphApi> {
    const fake = new FakeGraphApi();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v24.0`;
  }

  /** The next sends to this customer (E.164) answer these, in order, before going back to 200. */
  failNext(phone: string, ...answers: GraphAnswer[]): void {
    const to = phone.replace(/^\+/, '');
    this.queuedAnswers.set(to, [...(this.queuedAnswers.get(to) ?? []), ...answers]);
  }

  /** Sends to one customer (E.164): other tests' sends may still be arriving. */
  sendsTo(phone: string): GraphRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages') && r.body?.to === phone.replace(/^\+/, ''));
  }

  reset(): void {
    this.requests.length = 0;
    this.queuedAnswers.clear();
    this.healthStatus = 200;
    this.queuedReadReceiptAnswers.length = 0;
    this.resetTemplates();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, record: GraphRequest): Promise<GraphAnswer> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = (request.url ?? '').replace(/^\/v\d+\.0/, '');
    record.path = path;
    record.body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    this.requests.push(record);
    const templates = this.answerTemplates(request);
    if (templates) return templates;
    if (request.method === 'GET') {
      return this.healthStatus === 200
        ? { status: 200, body: { id: path.slice(1), display_phone_number: '15550000000', verified_name: 'Test' } }
        : { status: this.healthStatus, body: { error: { message: 'Invalid OAuth access token', code: 190 } } };
    }
    if (request.method === 'POST' && record.body?.status === 'read') return this.answerReadReceipt();
    if (this.sendDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.sendDelayMs));
    const queued = this.queuedAnswers.get(String(this.requests[this.requests.length - 1].body?.to))?.shift();
    if (queued) return queued;
    this.sent += 1;
    return {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ wa_id: 'x' }], messages: [{ id: `wamid.fake${this.sent}` }] },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Read receipts and reactions: `POST /{phone-number-id}/messages` with
  // `{"messaging_product":"whatsapp","status":"read","message_id":…}` answers `{"success":true}`;
  // a reaction is a send of type `reaction` like any other, answered with its own wamid.

  private readonly queuedReadReceiptAnswers: GraphAnswer[] = [];

  /** The next read receipts answer these, in order, before going back to `{"success":true}`. */
  failNextReadReceipts(...answers: GraphAnswer[]): void {
    this.queuedReadReceiptAnswers.push(...answers);
  }

  /** The read receipts received, optionally for one channel message id. */
  readReceipts(channelMessageId?: string): GraphRequest[] {
    return this.requests.filter(
      (r) =>
        r.method === 'POST' &&
        r.path.endsWith('/messages') &&
        r.body?.status === 'read' &&
        (channelMessageId === undefined || r.body.message_id === channelMessageId),
    );
  }

  /** Reaction sends to one customer (E.164). */
  reactionsTo(phone: string): GraphRequest[] {
    return this.sendsTo(phone).filter((r) => r.body?.type === 'reaction');
  }

  private answerReadReceipt(): GraphAnswer {
    return this.queuedReadReceiptAnswers.shift() ?? { status: 200, body: { success: true } };
  }
  // Message templates: GET /{business account id}/message_templates, paged as the Graph API pages
  // (`{data, paging: {cursors: {before, after}, next}}`, `next` a full URL with `after`).

  /** The business account's templates, in the Graph API's shape; tests set them. */
  templates: Record<string, unknown>[] = [defaultTemplate()];
  /** Templates per page at most (the request's `limit` may ask for fewer). */
  templatePageSize = 100;
  /** Where `paging.next` points; null: this server (set it elsewhere to play a hostile answer). */
  templateNextBaseUrl: string | null = null;
  private readonly queuedTemplateAnswers: (GraphAnswer | null)[] = [];

  /** The next catalogue page requests answer these, in order (null: the page as usual), before going back to the catalogue. */
  failTemplatesNext(...answers: (GraphAnswer | null)[]): void {
    this.queuedTemplateAnswers.push(...answers);
  }

  /** The catalogue page requests received, oldest first. */
  templateRequests(): GraphRequest[] {
    return this.requests.filter((r) => r.method === 'GET' && /^\/[^/]+\/message_templates(\?|$)/.test(r.path));
  }

  private resetTemplates(): void {
    this.templates = [defaultTemplate()];
    this.templatePageSize = 100;
    this.templateNextBaseUrl = null;
    this.queuedTemplateAnswers.length = 0;
  }

  private answerTemplates(request: IncomingMessage): GraphAnswer | null {
    const url = new URL(request.url ?? '/', 'http://fake');
    const match = /^\/v\d+\.0\/([^/]+)\/message_templates$/.exec(url.pathname);
    if (request.method !== 'GET' || !match) return null;
    const queued = this.queuedTemplateAnswers.shift();
    if (queued) return queued;
    const offset = url.searchParams.has('after') ? Number(Buffer.from(url.searchParams.get('after')!, 'base64url').toString()) : 0;
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), this.templatePageSize);
    const page = this.templates.slice(offset, offset + limit);
    const cursor = (at: number) => Buffer.from(String(at)).toString('base64url');
    const fields = url.searchParams.get('fields')?.split(',');
    const data = fields
      ? page.map((template) => Object.fromEntries(Object.entries(template).filter(([key]) => fields.includes(key))))
      : page;
    const more = offset + limit < this.templates.length;
    const next = new URL(`${this.templateNextBaseUrl ?? this.baseUrl}/${match[1]}/message_templates`);
    url.searchParams.forEach((value, key) => next.searchParams.set(key, value));
    next.searchParams.set('after', cursor(offset + page.length));
    return {
      status: 200,
      body: {
        data,
        paging: { cursors: { before: cursor(offset), after: cursor(offset + page.length) }, ...(more ? { next: next.toString() } : {}) },
      },
    };
  }
}

/** A template as the Graph API lists it: WhatsApp's own sample. */
function defaultTemplate(): Record<string, unknown> {
  return {
    name: 'hello_world',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Hello World' },
      {
        type: 'BODY',
        text: 'Welcome and congratulations!! This message demonstrates your ability to send a WhatsApp message notification.',
      },
      { type: 'FOOTER', text: 'WhatsApp Business Platform sample message' },
    ],
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    id: '1192339204654487',
  };
}
