import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  type ChannelAccount,
  ChannelClient,
  ChannelError,
  ChannelHealth,
  ChannelMediaDownload,
  ChannelMediaUpload,
  type ChannelTemplate,
  catalogueOf,
  MEDIA_TRANSFER_TIMEOUT_MS,
  OutboundMessage,
} from '../channel/channel-client';
import { channelErrorRule, judgeChannelError } from './channel-errors';

const SEND_TIMEOUT_MS = 10_000;
const HEALTH_TIMEOUT_MS = 3_000;
/** Per page of the template catalogue. */
const LIST_TIMEOUT_MS = 10_000;
/** Asking the channel where a media is. */
const MEDIA_LOOKUP_TIMEOUT_MS = 10_000;
/** Probes arrive every few seconds from every replica; the Graph API is asked at most this often. */
const HEALTH_CACHE_MS = 5_000;
/** The fields of a message template the catalogue keeps. */
const TEMPLATE_FIELDS = 'name,language,status,category,components,id,parameter_format';
const TEMPLATE_PAGE_SIZE = 100;
/** Far more pages than any business account has templates (a few thousand at most): past this, the channel's paging is taken to be broken. */
const MAX_TEMPLATE_PAGES = 500;

interface GraphError {
  error?: { message?: string; code?: number; error_subcode?: number; error_data?: { details?: string } };
}

/** The answer of `{phone number id}/block_users`: who was blocked or unblocked, and who not and why. */
interface GraphBlockUsers {
  block_users?: {
    added_users?: unknown[];
    removed_users?: unknown[];
    failed_users?: { input?: string; errors?: { message?: string; code?: number; error_data?: { details?: string } }[] }[];
  };
}

/** `GET /{media-id}`: where the media can be downloaded for the next 5 minutes. */
interface GraphMediaUrl {
  url?: unknown;
  mime_type?: unknown;
  sha256?: unknown;
  file_size?: unknown;
}

/** A page of a Graph API list: `{data: [...], paging: {cursors: {before, after}, next}}`. */
interface GraphPage {
  data?: unknown;
  paging?: { cursors?: { after?: unknown }; next?: unknown };
}

/**
 * The WhatsApp Business Cloud API for one number (an inbox's account): `POST {base}/{phone number
 * id}/messages` with its bearer token, and the catalogue at `GET {base}/{business account
 * id}/message_templates`.
 */
export class GraphApiChannel extends ChannelClient {
  private cachedHealth: { at: number; health: Promise<ChannelHealth> } | null = null;

  constructor(
    private readonly account: ChannelAccount,
    private readonly apiBaseUrl: string,
  ) {
    super();
  }

  get catalogue(): string | null {
    return catalogueOf(this.account);
  }

  async send(message: OutboundMessage): Promise<string> {
    const body = await this.postMessages<{ messages?: { id?: string }[] }>(
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        // A customer without a shared phone is reached by their business-scoped user id.
        ...(message.to.phone === null ? { recipient: message.to.userId } : { to: message.to.phone.replace(/^\+/, '') }),
        ...(message.context ? { context: message.context } : {}),
        type: message.type,
        [message.type]: message.content,
      },
      (answer) => Boolean(answer.messages?.[0]?.id),
    );
    return body.messages![0].id!;
  }

  /** `{"messaging_product":"whatsapp","status":"read","message_id":…}`, answered `{"success":true}`. */
  async markRead(channelMessageId: string): Promise<void> {
    await this.postMessages<{ success?: boolean }>(
      { messaging_product: 'whatsapp', status: 'read', message_id: channelMessageId },
      (answer) => answer.success === true,
    );
  }

  /** The read status with `"typing_indicator":{"type":"text"}`, answered `{"success":true}`. */
  async showTyping(channelMessageId: string): Promise<void> {
    await this.postMessages<{ success?: boolean }>(
      { messaging_product: 'whatsapp', status: 'read', message_id: channelMessageId, typing_indicator: { type: 'text' } },
      (answer) => answer.success === true,
    );
  }

  /**
   * `POST {phone number id}/block_users` `{"messaging_product":"whatsapp","block_users":[{"user":…}]}`,
   * answered with the user among `block_users.added_users`; a refusal is per user, in
   * `block_users.failed_users[].errors[]` (`131047` Re-engagement required: no message in 24 hours).
   */
  async block(user: string): Promise<void> {
    await this.changeBlockList('POST', user, 'added_users');
  }

  /** `DELETE {phone number id}/block_users` with the same body, answered among `block_users.removed_users`. */
  async unblock(user: string): Promise<void> {
    await this.changeBlockList('DELETE', user, 'removed_users');
  }

  private async changeBlockList(method: 'POST' | 'DELETE', user: string, changed: 'added_users' | 'removed_users'): Promise<void> {
    let response: Response;
    try {
      response = await fetch(`${this.apiBaseUrl}/${this.account.phoneNumberId}/block_users`, {
        method,
        headers: { authorization: `Bearer ${this.account.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', block_users: [{ user }] }),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChannelError(`The channel could not be reached: ${(error as Error).message}`, true);
    }
    const body = (await response.json().catch(() => ({}))) as GraphError & GraphBlockUsers;
    const done = body.block_users?.[changed];
    if (response.ok && Array.isArray(done) && done.length > 0) return;
    const refusal = body.block_users?.failed_users?.[0]?.errors?.[0];
    const code = refusal?.code ?? body.error?.code;
    throw refusalOf(
      response,
      code,
      refusal?.message ? describeGraphError(response.status, { error: refusal }) : describeGraphError(response.status, body),
    );
  }

  /** POSTs to the phone number's messages endpoint; answers the body when `succeeded` says so, else throws ChannelError. */
  private async postMessages<Answer>(payload: Record<string, unknown>, succeeded: (answer: Answer) => boolean): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(`${this.apiBaseUrl}/${this.account.phoneNumberId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.account.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChannelError(`The channel could not be reached: ${(error as Error).message}`, true);
    }
    const body = (await response.json().catch(() => ({}))) as GraphError & Answer;
    if (response.ok && succeeded(body)) return body;
    throw refusalOf(response, body.error?.code, describeGraphError(response.status, body));
  }

  /**
   * Every page of the business account's templates. Only a `paging.next` says another page
   * follows, and that page is asked of the configured base with the `paging.cursors.after` cursor,
   * never at the address `next` names: an answer cannot make us send the token elsewhere.
   */
  async listTemplates(): Promise<ChannelTemplate[]> {
    const account = this.account.businessAccountId;
    if (!account) throw new ChannelError('MESSAGING_BUSINESS_ACCOUNT_ID is not set: the channel has no template catalogue', false);
    const templates: ChannelTemplate[] = [];
    const cursors = new Set<string>();
    let after: string | null = null;
    for (let page = 1; ; page += 1) {
      const url = new URL(`${this.apiBaseUrl}/${encodeURIComponent(account)}/message_templates`);
      url.searchParams.set('fields', TEMPLATE_FIELDS);
      url.searchParams.set('limit', String(TEMPLATE_PAGE_SIZE));
      if (after !== null) url.searchParams.set('after', after);
      const what = `page ${page} of the template catalogue`;
      const body = await this.getJson<GraphPage>(url, what);
      if (!Array.isArray(body.data)) throw new ChannelError(`The channel answered ${what} without a data array`, true);
      body.data.forEach((item, index) => templates.push(templateOf(item, `${what}, item ${index + 1}`)));
      const next = body.paging?.next;
      const cursor = body.paging?.cursors?.after;
      if (typeof next !== 'string' || next === '') return templates;
      if (typeof cursor !== 'string' || cursor === '')
        throw new ChannelError(`The channel answered ${what} with paging.next but no cursor`, true);
      if (cursors.has(cursor) || page >= MAX_TEMPLATE_PAGES)
        throw new ChannelError(`The channel's pages of the template catalogue do not end (${what})`, true);
      cursors.add(cursor);
      after = cursor;
    }
  }

  /**
   * The Graph API's two steps: `GET /{media-id}` answers a URL that lives 5 minutes, with the
   * type, size and SHA-256; `GET` that URL with the bearer token answers the bytes. A 404, or
   * Graph's "object does not exist" (#100, subcode 33), means the channel no longer has the media
   * (gone); 429, 5xx, network errors and a refused token are retried (the operator can mend a
   * token within the media's 7 days); any other refusal is final. The URL step is always retried:
   * the next attempt asks for a fresh URL.
   */
  async downloadMedia(channelMediaId: string): Promise<ChannelMediaDownload> {
    const authorization = `Bearer ${this.account.accessToken}`;
    let response: Response;
    try {
      response = await fetch(`${this.apiBaseUrl}/${encodeURIComponent(channelMediaId)}`, {
        headers: { authorization },
        signal: AbortSignal.timeout(MEDIA_LOOKUP_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChannelError(`The channel could not be reached: ${(error as Error).message}`, true);
    }
    const answer = (await response.json().catch(() => ({}))) as GraphError & GraphMediaUrl;
    if (!response.ok) {
      const code = answer.error?.code;
      const gone = response.status === 404 || (code === 100 && answer.error?.error_subcode === 33);
      const retryable =
        !gone &&
        (response.status === 429 ||
          response.status >= 500 ||
          response.status === 401 ||
          response.status === 403 ||
          code === 190 ||
          channelErrorRule(code)?.outcome === 'pause');
      throw new ChannelError(describeGraphError(response.status, answer), retryable, gone);
    }
    const url = typeof answer.url === 'string' && /^https?:\/\//.test(answer.url) ? answer.url : null;
    if (!url) throw new ChannelError('The channel answered no download URL for the media', true);
    let bytes: Response;
    try {
      bytes = await fetch(url, { headers: { authorization }, signal: AbortSignal.timeout(MEDIA_TRANSFER_TIMEOUT_MS) });
    } catch (error) {
      throw new ChannelError(`The media could not be downloaded: ${(error as Error).message}`, true);
    }
    if (!bytes.ok || !bytes.body) {
      await bytes.body?.cancel();
      throw new ChannelError(`The media download answered HTTP ${bytes.status}`, true);
    }
    const size = Number(answer.file_size);
    return {
      mimeType: typeof answer.mime_type === 'string' && answer.mime_type !== '' ? answer.mime_type : null,
      sha256: typeof answer.sha256 === 'string' && answer.sha256 !== '' ? answer.sha256 : null,
      size: answer.file_size !== undefined && Number.isSafeInteger(size) && size >= 0 ? size : null,
      body: Readable.fromWeb(bytes.body as WebReadableStream<Uint8Array>),
    };
  }

  /**
   * `POST /{phone number id}/media` as multipart/form-data (`messaging_product`, `type`, `file`),
   * the file streamed from the store with its length stated; answers the channel's media id.
   */
  async uploadMedia(media: ChannelMediaUpload): Promise<string> {
    const form = multipartForm(media);
    let response: Response;
    try {
      response = await fetch(`${this.apiBaseUrl}/${this.account.phoneNumberId}/media`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.account.accessToken}`,
          'content-type': `multipart/form-data; boundary=${form.boundary}`,
          'content-length': String(form.length),
        },
        body: Readable.toWeb(form.body) as ReadableStream<Uint8Array>,
        duplex: 'half',
        signal: AbortSignal.timeout(MEDIA_TRANSFER_TIMEOUT_MS),
      } as RequestInit & { duplex: 'half' });
    } catch (error) {
      media.body.destroy();
      throw new ChannelError(`The channel could not be reached: ${(error as Error).message}`, true);
    }
    const body = (await response.json().catch(() => ({}))) as GraphError & { id?: unknown };
    if (response.ok && typeof body.id === 'string' && body.id !== '') return body.id;
    throw refusalOf(response, body.error?.code, describeGraphError(response.status, body));
  }

  health(): Promise<ChannelHealth> {
    if (!this.cachedHealth || Date.now() - this.cachedHealth.at > HEALTH_CACHE_MS) {
      this.cachedHealth = { at: Date.now(), health: this.probe() };
    }
    return this.cachedHealth.health;
  }

  private async probe(): Promise<ChannelHealth> {
    try {
      const response = await fetch(`${this.apiBaseUrl}/${this.account.phoneNumberId}`, {
        headers: { authorization: `Bearer ${this.account.accessToken}` },
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
      });
      const body = (await response.json().catch(() => ({}))) as GraphError & { display_phone_number?: unknown };
      if (response.ok) {
        const shown = body.display_phone_number;
        return { ok: true, channel: 'whatsapp', ...(typeof shown === 'string' ? { displayPhoneNumber: shown } : {}) };
      }
      return { ok: false, channel: 'whatsapp', error: describeGraphError(response.status, body) };
    } catch (error) {
      return { ok: false, channel: 'whatsapp', error: `The channel could not be reached: ${(error as Error).message}` };
    }
  }

  /** GET with the bearer token; the JSON answer, or a ChannelError naming `what` failed and why. */
  private async getJson<T>(url: URL, what: string): Promise<T> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: `Bearer ${this.account.accessToken}` },
        signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChannelError(`The channel could not be reached for ${what}: ${(error as Error).message}`, true);
    }
    const body = (await response.json().catch(() => null)) as (T & GraphError) | null;
    if (response.ok && body !== null && typeof body === 'object') return body;
    throw new ChannelError(
      `The channel refused ${what}: ${describeGraphError(response.status, body ?? {})}`,
      response.status === 429 || response.status >= 500,
    );
  }
}

/**
 * One template of a catalogue page, or a ChannelError naming where it is: a template that cannot
 * be read fails the whole sync, since a catalogue stored without it would mark it DELETED.
 */
function templateOf(item: unknown, where: string): ChannelTemplate {
  const fields = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  const text = (key: string): string | null => (typeof fields[key] === 'string' && fields[key] !== '' ? fields[key] : null);
  const [name, language, status, category] = [text('name'), text('language'), text('status'), text('category')];
  const components =
    Array.isArray(fields.components) && fields.components.every((c) => typeof c === 'object' && c !== null && !Array.isArray(c))
      ? (fields.components as Record<string, unknown>[])
      : null;
  if (!name || !language || !status || !category || !components) {
    throw new ChannelError(`The channel answered a template without a name, language, status, category or components (${where})`, false);
  }
  const id = typeof fields.id === 'string' || typeof fields.id === 'number' ? String(fields.id) : null;
  return { id, name, language, status, category, components, parameter_format: text('parameter_format') ?? 'POSITIONAL' };
}

/** A refused call as the table of the channel's codes judges it (channel-errors.ts). */
function refusalOf(response: Response, code: number | string | undefined, reason: string): ChannelError {
  const judged = judgeChannelError(response.status, code === undefined ? undefined : Number(code), response.headers.get('retry-after'));
  return new ChannelError(reason, judged.retryable, false, {
    retryAfterMs: judged.retryAfterMs,
    accountBroken: judged.accountBroken,
    refused: response.status >= 400 && response.status < 500,
  });
}

/** `(#<code>) <the channel's title>: <details>`; the channel often starts its message with the code already, said once here. */
function describeGraphError(status: number, body: GraphError): string {
  const error = body.error;
  if (!error?.message) {
    // A refusal without words: the code's title from the table, if it has one.
    const title = channelErrorRule(error?.code === undefined ? undefined : Number(error.code))?.title;
    return title ? `(#${error!.code}) ${title}` : `The channel answered HTTP ${status}`;
  }
  const details = error.error_data?.details ? `: ${error.error_data.details}` : '';
  const code = error.code !== undefined ? `(#${error.code}) ` : '';
  return `${code}${code && error.message.startsWith(code) ? error.message.slice(code.length) : error.message}${details}`;
}

/** The multipart body of a media upload, streamed: the fields, then the file's bytes as they are read. */
function multipartForm(media: ChannelMediaUpload): { boundary: string; length: number; body: Readable } {
  const boundary = `----team-inbox-${randomBytes(12).toString('hex')}`;
  const filename = media.filename.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(
    [
      `--${boundary}\r\nContent-Disposition: form-data; name="messaging_product"\r\n\r\nwhatsapp\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\n${media.mimeType}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${media.mimeType}\r\n\r\n`,
    ].join(''),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of media.body) yield chunk as Buffer;
    yield tail;
  }
  return { boundary, length: head.length + media.size + tail.length, body: Readable.from(parts()) };
}
