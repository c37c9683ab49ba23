import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AppConfig } from '../config/app-config';
import {
  ChannelError,
  ChannelHealth,
  ChannelMediaDownload,
  ChannelMediaUpload,
  MessagingChannel,
  OutboundMessage,
} from './messaging-channel';

const SEND_TIMEOUT_MS = 10_000;
const HEALTH_TIMEOUT_MS = 3_000;
/** Asking the channel where a media is. */
const MEDIA_LOOKUP_TIMEOUT_MS = 10_000;
/** Moving the bytes of one media (up to 100 MB) either way; the media download job's lease is longer. */
export const MEDIA_TRANSFER_TIMEOUT_MS = 5 * 60_000;
/** Probes arrive every few seconds from every replica; the Graph API is asked at most this often. */
const HEALTH_CACHE_MS = 5_000;
/** Graph error codes that mean "too fast, try later" even when the HTTP status is not 429. */
const THROTTLING_CODES = new Set([4, 80007, 130429, 131056]);

interface GraphError {
  error?: { message?: string; code?: number; error_subcode?: number; error_data?: { details?: string } };
}

/** `GET /{media-id}`: where the media can be downloaded for the next 5 minutes. */
interface GraphMediaUrl {
  url?: unknown;
  mime_type?: unknown;
  sha256?: unknown;
  file_size?: unknown;
}

/** The WhatsApp Business Cloud API: `POST {base}/{phone number id}/messages` with the bearer token. */
@Injectable()
export class GraphApiChannel extends MessagingChannel {
  private cachedHealth: { at: number; health: Promise<ChannelHealth> } | null = null;

  constructor(private readonly config: AppConfig) {
    super();
  }

  async send(message: OutboundMessage): Promise<string> {
    let response: Response;
    try {
      response = await fetch(`${this.config.messagingApiBaseUrl}/${this.config.messagingPhoneNumberId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.config.messagingAccessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: message.to.replace(/^\+/, ''),
          type: message.type,
          [message.type]: message.content,
        }),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChannelError(`The channel could not be reached: ${(error as Error).message}`, true);
    }
    const body = (await response.json().catch(() => ({}))) as GraphError & { messages?: { id?: string }[] };
    if (response.ok && body.messages?.[0]?.id) return body.messages[0].id;
    const code = body.error?.code;
    const retryable = response.status === 429 || response.status >= 500 || (code !== undefined && THROTTLING_CODES.has(code));
    throw new ChannelError(describeGraphError(response.status, body), retryable);
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
    const authorization = `Bearer ${this.config.messagingAccessToken}`;
    let response: Response;
    try {
      response = await fetch(`${this.config.messagingApiBaseUrl}/${encodeURIComponent(channelMediaId)}`, {
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
          (code !== undefined && THROTTLING_CODES.has(code)));
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
      response = await fetch(`${this.config.messagingApiBaseUrl}/${this.config.messagingPhoneNumberId}/media`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.config.messagingAccessToken}`,
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
    const code = body.error?.code;
    const retryable = response.status === 429 || response.status >= 500 || (code !== undefined && THROTTLING_CODES.has(code));
    throw new ChannelError(describeGraphError(response.status, body), retryable);
  }

  health(): Promise<ChannelHealth> {
    if (!this.cachedHealth || Date.now() - this.cachedHealth.at > HEALTH_CACHE_MS) {
      this.cachedHealth = { at: Date.now(), health: this.probe() };
    }
    return this.cachedHealth.health;
  }

  private async probe(): Promise<ChannelHealth> {
    try {
      const response = await fetch(`${this.config.messagingApiBaseUrl}/${this.config.messagingPhoneNumberId}`, {
        headers: { authorization: `Bearer ${this.config.messagingAccessToken}` },
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
      });
      if (response.ok) return { ok: true, channel: 'whatsapp' };
      const body = (await response.json().catch(() => ({}))) as GraphError;
      return { ok: false, channel: 'whatsapp', error: describeGraphError(response.status, body) };
    } catch (error) {
      return { ok: false, channel: 'whatsapp', error: `The channel could not be reached: ${(error as Error).message}` };
    }
  }
}

function describeGraphError(status: number, body: GraphError): string {
  const error = body.error;
  if (!error?.message) return `The channel answered HTTP ${status}`;
  const details = error.error_data?.details ? `: ${error.error_data.details}` : '';
  return `${error.code !== undefined ? `(#${error.code}) ` : ''}${error.message}${details}`;
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
