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
}
