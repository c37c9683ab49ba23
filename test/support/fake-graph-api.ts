import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface GraphRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | null;
  /** The whole answer has been written to the caller. */
  answered: boolean;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface GraphAnswer {
  status: number;
  body: unknown;
  /** Raw bytes instead of the JSON of `body` (the media download). */
  bytes?: Buffer;
  contentType?: string;
  /** More response headers (a Retry-After). */
  headers?: Record<string, string>;
}

/**
 * A stand-in for the WhatsApp Cloud API on loopback. Sends answer 200 with a fresh `wamid`
 * unless answers were queued for the customer with `failNext`; the phone-number probe answers `healthStatus`.
 */
export class FakeGraphApi {
  readonly requests: GraphRequest[] = [];
  healthStatus = 200;
  /** Phone number ids whose probe answers 401 whatever healthStatus says (one number's token revoked). */
  private readonly unhealthyNumbers = new Set<string>();
  /** Sends wait this long before answering (a slow Graph API). */
  sendDelayMs = 0;
  /** Answers queued per recipient (`to`, E.164 without +, or `recipient`, a user id): other tests' sends may still be arriving. */
  private readonly queuedAnswers = new Map<string, GraphAnswer[]>();
  private sent = 0;
  private readonly heldSends = new Map<string, { arrived: () => void; released: Promise<void> }>();

  private readonly server: Server = createServer((request, response) => {
    const record: GraphRequest = {
      method: request.method ?? '',
      path: '',
      authorization: request.headers.authorization,
      body: null,
      answered: false,
      at: Date.now(),
    };
    void this.handle(request, record).then(({ status, body, bytes, contentType, headers }) => {
      response.writeHead(status, { 'content-type': bytes ? (contentType ?? 'application/octet-stream') : 'application/json', ...headers });
      response.end(bytes ?? JSON.stringify(body), () => (record.answered = true));
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

  /** The settings that point the service's channel at this server, with the token and phone number id its tests expect. */
  get channelEnv(): Record<string, string> {
    return { MESSAGING_ACCESS_TOKEN: 'graph-token', MESSAGING_PHONE_NUMBER_ID: '106540352242922', MESSAGING_API_BASE_URL: this.baseUrl };
  }

  /** The next sends to this customer (E.164, or a user id) answer these, in order, before going back to 200. */
  failNext(phone: string, ...answers: GraphAnswer[]): void {
    const to = phone.replace(/^\+/, '');
    this.queuedAnswers.set(to, [...(this.queuedAnswers.get(to) ?? []), ...answers]);
  }

  /**
   * Holds the next send to this customer unanswered: `arrived` resolves once it is here, and it is
   * answered (as it would have been) when `release` is called. For what happens while a send is in flight.
   */
  holdNextSend(phone: string): { arrived: Promise<void>; release: () => void } {
    let arrived!: () => void;
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.heldSends.set(phone.replace(/^\+/, ''), { arrived, released });
    return { arrived: arrival, release };
  }

  /** Sends to one customer (E.164 by `to`, or a user id by `recipient`): other tests' sends may still be arriving. */
  sendsTo(customer: string): GraphRequest[] {
    return this.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/messages') && recipientOf(r.body) === customer.replace(/^\+/, ''),
    );
  }

  /** The probe of this number answers Graph's 401 for a bad token until healthyAgain. */
  failHealthOf(phoneNumberId: string): void {
    this.unhealthyNumbers.add(phoneNumberId);
  }

  healthyAgain(): void {
    this.unhealthyNumbers.clear();
  }

  reset(): void {
    this.requests.length = 0;
    this.queuedAnswers.clear();
    this.healthStatus = 200;
    this.unhealthyNumbers.clear();
    this.queuedReadReceiptAnswers.length = 0;
    this.blocked.clear();
    this.queuedBlockListAnswers.length = 0;
    this.resetTemplates();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, record: GraphRequest): Promise<GraphAnswer> {
    const media = await this.handleMedia(request, record);
    if (media) return media;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = (request.url ?? '').replace(/^\/v\d+\.0/, '');
    record.path = path;
    record.body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    this.requests.push(record);
    const templates = this.answerTemplates(request);
    if (templates) return templates;
    if (/^\/[^/]+\/block_users$/.test(path)) return this.answerBlockList(request.method ?? '', record.body);
    if (request.method === 'GET') {
      return this.healthStatus === 200 && !this.unhealthyNumbers.has(path.slice(1))
        ? { status: 200, body: { id: path.slice(1), display_phone_number: '15550000000', verified_name: 'Test' } }
        : {
            status: this.healthStatus === 200 ? 401 : this.healthStatus,
            body: { error: { message: 'Invalid OAuth access token', code: 190 } },
          };
    }
    if (request.method === 'POST' && record.body?.status === 'read') return this.answerReadReceipt();
    // As the channel: a message goes to a phone (`to`) or to a business-scoped user id (`recipient`), one of the two.
    if ((record.body?.to === undefined) === (record.body?.recipient === undefined))
      return {
        status: 400,
        body: { error: { message: '(#100) Exactly one of to and recipient is required', type: 'OAuthException', code: 100 } },
      };
    if (record.body?.type === 'interactive') {
      const refusal = interactiveRefusal(record.body.interactive);
      if (refusal)
        return {
          status: 400,
          body: { error: { message: '(#131009) Parameter value is not valid', code: 131009, error_data: { details: refusal } } },
        };
    }
    if (this.sendDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.sendDelayMs));
    const held = this.heldSends.get(String(recipientOf(record.body)));
    if (held) {
      this.heldSends.delete(String(recipientOf(record.body)));
      held.arrived();
      await held.released;
    }
    const queued = this.queuedAnswers.get(String(recipientOf(record.body)))?.shift();
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
        r.body.typing_indicator === undefined &&
        (channelMessageId === undefined || r.body.message_id === channelMessageId),
    );
  }

  /** The "typing…" indicators received (a read status with `typing_indicator`), optionally for one channel message id. */
  typingIndicators(channelMessageId?: string): GraphRequest[] {
    return this.requests.filter(
      (r) =>
        r.method === 'POST' &&
        r.path.endsWith('/messages') &&
        r.body?.status === 'read' &&
        r.body.typing_indicator !== undefined &&
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
  // The block list: POST (block) and DELETE (unblock) /{phone-number-id}/block_users with
  // `{"messaging_product":"whatsapp","block_users":[{"user":…}]}`, answered with the users among
  // `block_users.added_users` / `removed_users`; a refusal is a 400 naming each user that failed.

  /** The customers (as the request named them) blocked now. */
  readonly blocked = new Set<string>();
  private readonly queuedBlockListAnswers: GraphAnswer[] = [];

  /** The next block or unblock requests answer these, in order, before going back to success. */
  failBlockListNext(...answers: GraphAnswer[]): void {
    this.queuedBlockListAnswers.push(...answers);
  }

  /** The block and unblock requests received, oldest first. */
  blockListRequests(): GraphRequest[] {
    return this.requests.filter((r) => /^\/[^/]+\/block_users$/.test(r.path));
  }

  private answerBlockList(method: string, body: Record<string, unknown> | null): GraphAnswer {
    const queued = this.queuedBlockListAnswers.shift();
    if (queued) return queued;
    const users = ((body?.block_users ?? []) as { user: string }[]).map(({ user }) => ({ input: user, wa_id: user.replace(/^\+/, '') }));
    for (const { input } of users)
      if (method === 'POST') this.blocked.add(input);
      else this.blocked.delete(input);
    return {
      status: 200,
      body: { messaging_product: 'whatsapp', block_users: { [method === 'POST' ? 'added_users' : 'removed_users']: users } },
    };
  }

  // Message templates: GET /{business account id}/message_templates, paged as the Graph API pages
  // (`{data, paging: {cursors: {before, after}, next}}`, `next` a full URL with `after`).

  /** The business account's templates, in the Graph API's shape; tests set them. */
  templates: Record<string, unknown>[] = [defaultTemplate()];
  /** Other business accounts' templates, by account id; an account not here answers `templates`. */
  readonly accountTemplates = new Map<string, Record<string, unknown>[]>();
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
    this.accountTemplates.clear();
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
    const templates = this.accountTemplates.get(match[1]) ?? this.templates;
    const page = templates.slice(offset, offset + limit);
    const cursor = (at: number) => Buffer.from(String(at)).toString('base64url');
    const fields = url.searchParams.get('fields')?.split(',');
    const data = fields
      ? page.map((template) => Object.fromEntries(Object.entries(template).filter(([key]) => fields.includes(key))))
      : page;
    const more = offset + limit < templates.length;
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

  // ---------------------------------------------------------------------------------------------
  // Media: `GET /{media-id}` (where to download it), the download URL (on this server, bearer
  // token required), and `POST /{phone-number-id}/media` (a multipart upload). Shapes as Meta
  // documents them; failures, delays and expiry on demand.

  /** Media the fake channel holds, by the channel's media id. */
  readonly media = new Map<string, FakeMedia>();
  /** Every multipart upload received, in order. */
  readonly mediaUploads: FakeMediaUpload[] = [];
  /** Media lookups wait this long before answering (a slow Graph API). */
  mediaDelayMs = 0;
  private readonly expiredMedia = new Set<string>();
  private readonly downloadFailures = new Map<string, GraphAnswer[]>();
  private readonly corruptDownloadsLeft = new Map<string, number>();
  private readonly mediaHolds = new Map<string, Promise<void>>();
  private readonly uploadFailures: GraphAnswer[] = [];
  private mediaSequence = 0;

  /** Holds `bytes` as a customer's media; answers its channel id. `sha256` overrides what the lookup tells (hex). */
  addMedia(bytes: Buffer, mimeType: string, options: { sha256?: string } = {}): FakeMedia {
    const media: FakeMedia = {
      id: this.nextMediaId(),
      bytes,
      mimeType,
      sha256: options.sha256 ?? createHash('sha256').update(bytes).digest('hex'),
    };
    this.media.set(media.id, media);
    return media;
  }

  /** The next downloads of this media (the URL step) answer these, in order. */
  failDownloads(mediaId: string, ...answers: GraphAnswer[]): void {
    this.downloadFailures.set(mediaId, [...(this.downloadFailures.get(mediaId) ?? []), ...answers]);
  }

  /** The next `count` downloads of this media answer other bytes than the lookup's SHA-256 says. */
  corruptDownloads(mediaId: string, count: number): void {
    this.corruptDownloadsLeft.set(mediaId, count);
  }

  /** The channel drops the media: lookups answer Graph's error for an object that does not exist. */
  expireMedia(mediaId: string): void {
    this.expiredMedia.add(mediaId);
  }

  /** Lookups of this media wait until the answered function is called. */
  holdMedia(mediaId: string): () => void {
    let release!: () => void;
    this.mediaHolds.set(mediaId, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.mediaHolds.delete(mediaId);
      release();
    };
  }

  /** The next uploads answer these, in order. */
  failUploads(...answers: GraphAnswer[]): void {
    this.uploadFailures.push(...answers);
  }

  /** Lookups (`GET /{id}`) and downloads of one media, in order. */
  mediaRequests(mediaId: string): GraphRequest[] {
    return this.requests.filter((r) => r.path === `/${mediaId}` || r.path.startsWith(`/whatsapp_business/attachments/?mid=${mediaId}&`));
  }

  private nextMediaId(): string {
    this.mediaSequence += 1;
    return `${1_000_000_000_000 + this.mediaSequence * 7919 + randomBytes(2).readUInt16BE()}`;
  }

  private get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers the media endpoints; null for any other request, which the code above answers. */
  private async handleMedia(request: IncomingMessage, record: GraphRequest): Promise<GraphAnswer | null> {
    const url = request.url ?? '';
    const path = url.replace(/^\/v\d+\.0/, '');
    const lookup = /^\/(\d+)$/.exec(path);
    const download = /^\/whatsapp_business\/attachments\/\?mid=(\d+)&/.exec(path);
    const upload = request.method === 'POST' && /^\/[^/]+\/media$/.test(path);
    const mediaId = lookup?.[1] ?? download?.[1];
    if (!upload && !(mediaId && (this.media.has(mediaId) || this.expiredMedia.has(mediaId)))) return null;
    record.path = path;
    const body = await readBody(request);
    this.requests.push(record);
    const unauthorized: GraphAnswer = {
      status: 401,
      body: { error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 } },
    };
    if (!request.headers.authorization?.startsWith('Bearer ')) return unauthorized;
    if (upload) return this.receiveUpload(request, record, body);
    if (request.method === 'GET' && lookup) {
      await this.mediaHolds.get(mediaId!);
      if (this.mediaDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.mediaDelayMs));
      const media = this.media.get(mediaId!);
      if (!media || this.expiredMedia.has(mediaId!)) {
        return {
          status: 400,
          body: {
            error: {
              message: `Unsupported get request. Object with ID '${mediaId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
              type: 'GraphMethodException',
              code: 100,
              error_subcode: 33,
              fbtrace_id: 'AbCdEfGhIjK',
            },
          },
        };
      }
      return {
        status: 200,
        body: {
          messaging_product: 'whatsapp',
          url: `${this.origin}/whatsapp_business/attachments/?mid=${media.id}&ext=${Date.now()}&hash=${randomBytes(8).toString('hex')}`,
          mime_type: media.mimeType,
          sha256: media.sha256,
          file_size: media.bytes.length,
          id: media.id,
        },
      };
    }
    if (request.method === 'GET' && download) {
      const failure = this.downloadFailures.get(mediaId!)?.shift();
      if (failure) return failure;
      const media = this.media.get(mediaId!)!;
      const corrupt = this.corruptDownloadsLeft.get(mediaId!) ?? 0;
      if (corrupt > 0) {
        this.corruptDownloadsLeft.set(mediaId!, corrupt - 1);
        return { status: 200, body: null, bytes: Buffer.concat([media.bytes.subarray(0, -1), Buffer.from([media.bytes.at(-1)! ^ 0xff])]) };
      }
      return { status: 200, body: null, bytes: media.bytes, contentType: media.mimeType };
    }
    return { status: 400, body: { error: { message: 'Unsupported request', code: 100 } } };
  }

  private receiveUpload(request: IncomingMessage, record: GraphRequest, body: Buffer): GraphAnswer {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(request.headers['content-type'] ?? '');
    const parts = boundary ? parseMultipart(body, boundary[1] ?? boundary[2]) : [];
    const fields = Object.fromEntries(
      parts.filter((part) => part.filename === undefined).map((part) => [part.name, part.data.toString('utf8')]),
    );
    const file = parts.find((part) => part.filename !== undefined);
    const received: FakeMediaUpload = {
      path: record.path,
      authorization: request.headers.authorization,
      contentLength: Number(request.headers['content-length']),
      fields,
      file: file ? { filename: file.filename!, contentType: file.contentType, bytes: file.data } : null,
    };
    this.mediaUploads.push(received);
    const failure = this.uploadFailures.shift();
    if (failure) return failure;
    if (fields.messaging_product !== 'whatsapp' || !fields.type || !file) {
      return { status: 400, body: { error: { message: '(#100) The parameter messaging_product is required.', code: 100 } } };
    }
    const media: FakeMedia = {
      id: this.nextMediaId(),
      bytes: file.data,
      mimeType: fields.type,
      sha256: createHash('sha256').update(file.data).digest('hex'),
    };
    this.media.set(media.id, media);
    received.id = media.id;
    return { status: 200, body: { id: media.id } };
  }
}

/** A media the fake channel holds. */
export interface FakeMedia {
  id: string;
  bytes: Buffer;
  mimeType: string;
  /** Hex, as the lookup answers it. */
  sha256: string;
}

/** A multipart upload as the fake channel received it. */
export interface FakeMediaUpload {
  path: string;
  authorization: string | undefined;
  contentLength: number;
  fields: Record<string, string>;
  file: { filename: string; contentType: string | undefined; bytes: Buffer } | null;
  /** The id the upload was answered with, if it was accepted. */
  id?: string;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The parts of a multipart/form-data body (enough of RFC 7578 for the uploads the service makes). */
function parseMultipart(body: Buffer, boundary: string): { name: string; filename?: string; contentType?: string; data: Buffer }[] {
  const parts: { name: string; filename?: string; contentType?: string; data: Buffer }[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const headersStart = start + delimiter.length + 2;
    if (body.subarray(start + delimiter.length, start + delimiter.length + 2).toString() === '--') break;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    const next = body.indexOf(delimiter, headersEnd);
    if (headersEnd === -1 || next === -1) break;
    const headers = body.subarray(headersStart, headersEnd).toString('utf8');
    const name = /name="([^"]*)"/.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(headers)?.[1];
    const contentType = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1];
    parts.push({ name, filename, contentType, data: body.subarray(headersEnd + 4, next - 2) });
    start = next;
  }
  return parts;
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

/** Whom a send goes to: its `to` (a phone without +) or its `recipient` (a user id). */
function recipientOf(body: Record<string, unknown> | null): unknown {
  return body?.to ?? body?.recipient;
}

/** A body as the channel receives it, read as loosely as the channel reads it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/**
 * What the Cloud API refuses in an interactive message, from its documentation ("Interactive
 * reply buttons / list / CTA URL button / Flow messages"), written apart from the service's own
 * check so that a body the service lets through and the channel would refuse fails a test.
 */
function interactiveRefusal(interactive: unknown): string | null {
  const i = interactive as Record<string, Loose> | undefined;
  const chars = (value: unknown) => (typeof value === 'string' ? [...value].length : -1);
  const within = (value: unknown, max: number) => chars(value) >= 1 && chars(value) <= max;
  if (!i || !['button', 'list', 'cta_url', 'flow'].includes(i.type)) return 'interactive.type is not supported';
  if (!within(i.body?.text, 1024)) return 'body.text is required, up to 1024 characters';
  if (i.footer !== undefined && !within(i.footer.text, 60)) return 'footer.text up to 60 characters';
  if (i.header !== undefined) {
    if (i.header.type === 'text' && !within(i.header.text, 60)) return 'header.text up to 60 characters';
    if (['image', 'video', 'document'].includes(i.header.type)) {
      const media = i.header[i.header.type];
      if (i.type === 'list' || i.type === 'flow') return `a ${i.type} message takes a text header only`;
      if (!media || (media.id === undefined) === (media.link === undefined)) return 'header media needs an id or a link';
      if (media.media_id !== undefined) return 'header media has an unknown parameter media_id';
    }
  }
  const action = i.action ?? {};
  if (i.type === 'button') {
    const buttons = action.buttons;
    if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) return 'buttons: 1 to 3';
    const ids = buttons.map((b: Loose) => b?.reply?.id);
    const titles = buttons.map((b: Loose) => b?.reply?.title);
    if (buttons.some((b: Loose) => b?.type !== 'reply')) return 'button type must be reply';
    if (ids.some((id: unknown) => !within(id, 256)) || new Set(ids).size !== ids.length) return 'button ids: unique, up to 256';
    if (titles.some((t: unknown) => !within(t, 20)) || new Set(titles).size !== titles.length) return 'button titles: unique, up to 20';
  } else if (i.type === 'list') {
    if (!within(action.button, 20)) return 'action.button up to 20 characters';
    const sections = action.sections;
    if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10) return 'sections: 1 to 10';
    const rows = sections.flatMap((section: Loose) => (Array.isArray(section?.rows) ? section.rows : [null]));
    if (rows.length < 1 || rows.length > 10) return 'rows: 1 to 10 in all';
    if (sections.length > 1 && sections.some((section: Loose) => !within(section.title, 24))) return 'section titles up to 24 characters';
    if (rows.some((row: Loose) => !within(row?.id, 200) || !within(row?.title, 24))) return 'row id up to 200, title up to 24';
    if (rows.some((row: Loose) => row.description !== undefined && !within(row.description, 72))) return 'row description up to 72';
    if (new Set(rows.map((row: Loose) => row.id)).size !== rows.length) return 'row ids must be unique';
  } else if (i.type === 'cta_url') {
    if (action.name !== 'cta_url' || !within(action.parameters?.display_text, 20)) return 'cta_url display_text up to 20';
    if (!/^https:\/\/[^/\s]+/.test(String(action.parameters?.url))) return 'cta_url url must be https';
  } else {
    const parameters = action.parameters ?? {};
    if (action.name !== 'flow' || !within(parameters.flow_cta, 20)) return 'flow_cta up to 20';
    if ((parameters.flow_id === undefined) === (parameters.flow_name === undefined)) return 'flow_id or flow_name';
    if (parameters.flow_message_version !== '3') return 'flow_message_version must be 3';
    if ((parameters.flow_action ?? 'navigate') === 'navigate' && typeof parameters.flow_action_payload?.screen !== 'string')
      return 'flow_action_payload.screen is required with navigate';
  }
  return null;
}
