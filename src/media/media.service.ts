import {
  BadRequestException,
  ConflictException,
  GoneException,
  HttpException,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleInit,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
// The core entry: the same detection from bytes, without the Node stream helpers (jest resolves it; the package root needs module-sync).
import { fileTypeFromBuffer } from 'file-type/core';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SignedUrls } from '../auth/signed-urls';
import { newUuid, toPublicId } from '../common/ids';
import { toStorable } from '../common/storable-text';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { visibleInboxesOf, type UserRow } from '../users/user.entity';
import { contentDisposition, matchesEntityTag, parseRange } from './http-range';
import { MediaIntake, MediaRefusal } from './media-intake';
import { MessageMediaResponse, sizeOf, UploadedMediaResponse } from './media.dto';
import type { MediaKind, MediaRow } from './media.entity';
import { MediaRepository } from './media.repository';
import { MediaStore, storageKeyOf } from './media-store';
import { classifyUpload, describeSize, KIND_LIMITS, kindOfType, MAX_MEDIA_BYTES } from './media-types';

/** How long the channel keeps a media id of a customer's message, counted from the message's timestamp. */
export const CHANNEL_MEDIA_LIFETIME_MS = 7 * 86_400_000;
/**
 * How long an upload's channel id is sent again rather than uploading anew: the channel keeps
 * uploads 30 days; a day less, so an id never dies between the check and the send.
 */
const CHANNEL_UPLOAD_REUSE_MS = 29 * 86_400_000;
const MAX_FILENAME_LENGTH = 240;
/** Unsent uploads deleted per transaction. */
const UPLOAD_DELETE_BATCH = 100;

/** A file part of an upload, read from the request as it arrives. */
export interface IncomingFile {
  stream: Readable;
  filename: string | undefined;
  /** The type the client declared for the part; trusted only where the bytes cannot tell (see classifyUpload). */
  declaredType: string | undefined;
}

/** An inbound media, as the channel's webhook describes it. */
export interface InboundMedia {
  kind: MediaKind;
  mimeType: string;
  channelMediaId: string;
  channelSha256: string | null;
  filename: string | null;
  /** The channel's timestamp of the message: its media is kept 7 days from then. */
  sentAt: Date;
  /** The inbox that received it: its token downloads it. */
  inboxId: string;
}

/** What the channel says it has, checked against what was downloaded. */
export interface ExpectedBytes {
  sha256: string | null;
  size: number | null;
}

/** How `GET /api/v1/media/:id` answers: the bytes (200, 206) or their absence (304, 416). */
export type MediaAnswer =
  | { status: 200 | 206; headers: Record<string, string | number>; body: Readable }
  | { status: 304; headers: Record<string, string | number> }
  | { status: 416; headers: Record<string, string | number> };

/** The conditions of a GET: `Range`, `If-Range`, `If-None-Match`. */
export interface MediaConditions {
  range?: string;
  ifRange?: string;
  ifNoneMatch?: string;
}

/** The downloaded bytes do not match what the channel said (SHA-256 or size): the attempt failed. */
export class MediaIntegrityError extends Error {
  override name = 'MediaIntegrityError';
}

/**
 * The media of the inbox: uploads for sending, customers' media downloaded from the channel (the
 * download itself is the messaging module's job, which knows the channel), and the bytes served
 * back by bearer token or signed URL. Owns the `media` table and the media store.
 */
@Injectable()
export class MediaService implements OnModuleInit {
  private readonly logger = new Logger(MediaService.name);
  private readonly downloadEndListeners: ((db: Db, mediaId: string) => Promise<void>)[] = [];

  constructor(
    private readonly database: Database,
    private readonly media: MediaRepository,
    private readonly store: MediaStore,
    private readonly signedUrls: SignedUrls,
    private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    try {
      await this.store.check();
      this.logger.log(`Media is kept in ${this.store.description}`);
    } catch (error) {
      // Not fatal: the API serves everything else, downloads retry, and the store may come back.
      this.logger.error(`The media store (${this.store.description}) cannot be reached: ${(error as Error).message}`);
    }
  }

  /**
   * Stores an upload as it arrives: its type read from its first bytes, its size held to the
   * channel's limit for that type and to what is left of the uploader's quota of unsent uploads
   * (MEDIA_UPLOAD_QUOTA_MB), checked again, under a lock, when it is recorded.
   */
  async upload(file: IncomingFile, uploader: UserRow): Promise<UploadedMediaResponse> {
    const now = new Date();
    const quotaLeft = this.config.mediaUploadQuotaBytes - (await this.unsentBytesOf(this.database.db, uploader.id, now));
    if (quotaLeft <= 0) throw this.overQuota();
    const id = newUuid(now.getTime());
    let kind: MediaKind | null = null;
    let mimeType = 'application/octet-stream';
    const intake = new MediaIntake({
      // Held to the quota left as it streams: a user near their quota cannot write 100 MB to the store first.
      maxBytes: Math.min(MAX_MEDIA_BYTES, quotaLeft),
      tooLarge: (limit) => {
        if (limit < (kind ? KIND_LIMITS[kind] : MAX_MEDIA_BYTES)) return this.overQuota().message;
        return kind
          ? `The file is larger than WhatsApp takes for ${kind === 'image' ? 'an' : 'a'} ${kind} (${describeSize(limit)})`
          : `The file is larger than WhatsApp takes for any media (${describeSize(limit)})`;
      },
      decide: async (sample) => {
        if (sample.length === 0) throw new MediaRefusal('The file is empty', 400);
        const classified = classifyUpload((await fileTypeFromBuffer(sample))?.mime, file.declaredType, file.filename);
        if ('refused' in classified) throw new MediaRefusal(classified.refused, 415);
        kind = classified.kind;
        mimeType = classified.mimeType;
        return { maxBytes: KIND_LIMITS[classified.kind], mustBeText: classified.mustBeText };
      },
    });
    const key = storageKeyOf(id);
    try {
      await this.storeStream(key, file.stream, intake);
    } catch (error) {
      throw uploadRefusal(error);
    }
    const row: MediaRow = {
      id,
      direction: 'outbound',
      kind: kind!,
      status: 'ready',
      mime_type: mimeType,
      size: intake.size,
      filename: cleanFilename(file.filename),
      sha256: intake.digest(),
      storage_key: key,
      channel_media_id: null,
      channel_sha256: null,
      available_until: null,
      channel_upload_id: null,
      channel_uploaded_at: null,
      inbox_id: null,
      channel_upload_inbox_id: null,
      error: null,
      attempts: 0,
      next_attempt_at: null,
      uploaded_by: uploader.id,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.database.transaction(async (db) => {
        await this.media.lockUploadsOf(db, uploader.id);
        if ((await this.unsentBytesOf(db, uploader.id, now)) + intake.size > this.config.mediaUploadQuotaBytes) throw this.overQuota();
        await this.media.insert(db, row);
      });
    } catch (error) {
      await this.store.delete(key).catch(() => undefined);
      throw error;
    }
    return UploadedMediaResponse.of(row);
  }

  /**
   * Deletes the uploads no message was sent with that are older than MEDIA_UPLOAD_TTL, rows first
   * (a send of one waits for, or is skipped by, the deletion) and then their bytes; answers how
   * many. Bytes whose deletion fails are left in the store, and logged.
   */
  async deleteUnsentUploads(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.mediaUploadTtlMs);
    let deleted = 0;
    for (let batch = UPLOAD_DELETE_BATCH; batch === UPLOAD_DELETE_BATCH;) {
      const keys = await this.database.transaction((db) => this.media.deleteUnsentBefore(db, before, UPLOAD_DELETE_BATCH));
      batch = keys.length;
      deleted += keys.length;
      for (const key of keys) {
        await this.store
          .delete(key)
          .catch((error: unknown) => this.logger.warn(`The bytes of deleted upload ${key} stay in the store: ${String(error)}`));
      }
    }
    if (deleted > 0)
      this.logger.log(`Deleted ${deleted} upload(s) no message was sent with, older than ${before.toISOString()} (MEDIA_UPLOAD_TTL)`);
    return deleted;
  }

  private unsentBytesOf(db: Db, userId: string, now: Date): Promise<number> {
    return this.media.unsentBytesOf(db, userId, new Date(now.getTime() - this.config.mediaUploadTtlMs));
  }

  private overQuota(): PayloadTooLargeException {
    const quota = describeSize(this.config.mediaUploadQuotaBytes);
    return new PayloadTooLargeException(
      `Your uploads not yet sent would take more than your ${quota} (MEDIA_UPLOAD_QUOTA_MB): send them, or wait until they are deleted, a day after upload (MEDIA_UPLOAD_TTL)`,
    );
  }

  /**
   * Whether a user may read (or send on) a media: an admin any; a customer's, who sees the inbox
   * that received it; an upload, its uploader, and who sees an inbox it went out through (a message
   * of it carries it, or, for a template's header, the number it was last uploaded to the channel
   * through). An agent who no longer works that inbox, or never did, cannot read it by its id.
   */
  async readableBy(db: Db, reader: UserRow, media: MediaRow): Promise<boolean> {
    const visible = visibleInboxesOf(reader);
    if (visible === null) return true;
    if (media.direction === 'inbound') return media.inbox_id !== null && visible.includes(media.inbox_id);
    if (media.uploaded_by === reader.id) return true;
    if (media.channel_upload_inbox_id !== null && visible.includes(media.channel_upload_inbox_id)) return true;
    return visible.length > 0 && this.media.sentIn(db, media.id, visible);
  }

  /**
   * The bytes of a media for `GET /api/v1/media/:id`: 409 while pending, 410 when they will never be
   * there. `reader`: the bearer's user, who reads what `readableBy` lets them (404 for the rest, as
   * if absent); null with a signed URL, which was handed out with a message its reader could see.
   */
  async serve(id: string, conditions: MediaConditions, reader: UserRow | null): Promise<MediaAnswer> {
    const row = await this.media.find(this.database.db, id);
    if (!row || (reader !== null && !(await this.readableBy(this.database.db, reader, row))))
      throw new NotFoundException('Media not found');
    if (row.status === 'pending') throw new ConflictException('The media is still being downloaded from the channel; retry shortly');
    if (row.status !== 'ready') throw new GoneException(`The media is ${row.status}: ${row.error ?? 'it will not be downloaded'}`);
    const size = sizeOf(row)!;
    const etag = `"${row.sha256}"`;
    const kind = kindOfType(row.mime_type);
    const headers: Record<string, string | number> = {
      etag,
      'cache-control': 'private, max-age=86400, immutable',
      'accept-ranges': 'bytes',
      // What a customer sent is never run as a page of this origin, whatever it holds.
      'content-security-policy': "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
      'x-content-type-options': 'nosniff',
      // A signed URL is made to be used by pages of other origins too (CORS_ORIGIN's front end).
      'cross-origin-resource-policy': 'cross-origin',
    };
    if (matchesEntityTag(conditions.ifNoneMatch, etag)) return { status: 304, headers };
    const range = conditions.ifRange === undefined || conditions.ifRange === etag ? parseRange(conditions.range, size) : null;
    if (range === 'unsatisfiable') return { status: 416, headers: { ...headers, 'content-range': `bytes */${size}` } };
    const inline = kind !== null && kind !== 'document';
    Object.assign(headers, {
      'content-type': kind ? row.mime_type.split(';')[0].trim().toLowerCase() : 'application/octet-stream',
      'content-disposition': contentDisposition(inline ? 'inline' : 'attachment', row.filename ?? defaultFilename(row)),
    });
    if (range) {
      const body = await this.store.get(row.storage_key!, range);
      return {
        status: 206,
        headers: {
          ...headers,
          'content-length': range.end - range.start + 1,
          'content-range': `bytes ${range.start}-${range.end}/${size}`,
        },
        body,
      };
    }
    return { status: 200, headers: { ...headers, 'content-length': size }, body: await this.store.get(row.storage_key!) };
  }

  /** The media of messages, as message answers carry them, by media id. */
  async describe(db: Db, ids: (string | null)[]): Promise<Map<string, MessageMediaResponse>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    const rows = wanted.length === 0 ? [] : await this.media.findMany(db, wanted);
    return new Map(rows.map((row) => [row.id, this.describeRow(row)]));
  }

  /** One media as a message carries it, with a fresh signed URL. */
  describeRow(row: MediaRow): MessageMediaResponse {
    const id = toPublicId('med', row.id);
    const fetchable = row.status === 'pending' || row.status === 'ready';
    return {
      id,
      mime_type: row.mime_type,
      size: sizeOf(row),
      filename: row.filename,
      status: row.status,
      url: fetchable ? this.signedUrls.sign(`/api/v1/media/${id}`, this.config.mediaUrlTtlMs) : null,
    };
  }

  /** Records a customer's media in the caller's transaction (the ingest), pending and due for download now; answers its id. */
  async recordInbound(db: Db, inbound: InboundMedia): Promise<string> {
    const now = new Date();
    const id = newUuid(now.getTime());
    await this.media.insert(db, {
      id,
      direction: 'inbound',
      kind: inbound.kind,
      status: 'pending',
      mime_type: inbound.mimeType,
      size: null,
      filename: cleanFilename(inbound.filename ?? undefined),
      sha256: null,
      storage_key: null,
      channel_media_id: inbound.channelMediaId,
      channel_sha256: inbound.channelSha256,
      available_until: new Date(inbound.sentAt.getTime() + CHANNEL_MEDIA_LIFETIME_MS),
      channel_upload_id: null,
      channel_uploaded_at: null,
      inbox_id: inbound.inboxId,
      channel_upload_inbox_id: null,
      error: null,
      attempts: 0,
      next_attempt_at: now,
      uploaded_by: null,
      created_at: now,
      updated_at: now,
    });
    return id;
  }

  /** A media a message in the caller's transaction is sent with: from its commit on it is no unsent upload. */
  takeForSending(db: Db, id: string): Promise<MediaRow | null> {
    return this.media.takeForSending(db, id);
  }

  get(id: string): Promise<MediaRow | null> {
    return this.media.find(this.database.db, id);
  }

  /** The channel's id of an upload while it is fresh enough to send by; null when it must be uploaded (again). */
  freshChannelUpload(row: MediaRow, inboxId: string): string | null {
    // The channel's id of an upload is the number's it was uploaded through.
    if (!row.channel_upload_id || !row.channel_uploaded_at || row.channel_upload_inbox_id !== inboxId) return null;
    return Date.now() - row.channel_uploaded_at.getTime() < CHANNEL_UPLOAD_REUSE_MS ? row.channel_upload_id : null;
  }

  async recordChannelUpload(id: string, channelUploadId: string, inboxId: string): Promise<void> {
    await this.media.recordChannelUpload(this.database.db, id, channelUploadId, inboxId, new Date());
  }

  /** The stored bytes of a ready media. */
  read(row: MediaRow): Promise<Readable> {
    if (row.status !== 'ready' || !row.storage_key) throw new Error(`Media ${toPublicId('med', row.id)} has no bytes (${row.status})`);
    return this.store.get(row.storage_key);
  }

  /**
   * Streams downloaded bytes into the store, checked against the channel's size and SHA-256 as
   * they pass; answers what was stored. Bytes that do not match are discarded and the attempt
   * fails (MediaIntegrityError), so it is retried.
   */
  async storeDownload(row: MediaRow, body: Readable, expected: ExpectedBytes): Promise<{ key: string; size: number; sha256: string }> {
    const key = storageKeyOf(row.id);
    const limit = Math.min(expected.size ?? MAX_MEDIA_BYTES, MAX_MEDIA_BYTES);
    const intake = new MediaIntake({
      maxBytes: limit,
      tooLarge: () =>
        expected.size !== null ? `The channel sent more than the ${expected.size} bytes it announced` : 'The media is larger than 100 MB',
    });
    try {
      await this.storeStream(key, body, intake);
    } catch (error) {
      if (error instanceof MediaRefusal) throw new MediaIntegrityError(error.message);
      throw error;
    }
    const sha256 = intake.digest();
    const mismatch =
      expected.size !== null && intake.size !== expected.size
        ? `The download has ${intake.size} bytes, the channel announced ${expected.size}`
        : expected.sha256 !== null && !sameSha256(expected.sha256, sha256)
          ? "The downloaded bytes do not match the channel's SHA-256"
          : null;
    if (mismatch) {
      await this.store.delete(key);
      throw new MediaIntegrityError(mismatch);
    }
    return { key, size: intake.size, sha256 };
  }

  /**
   * For the modules whose records carry media (messages): `listener` is told, in the transaction
   * that ends a download (ready, failed or expired), which media it was. Called while the application starts.
   */
  whenDownloadEnds(listener: (db: Db, mediaId: string) => Promise<void>): void {
    this.downloadEndListeners.push(listener);
  }

  /** Records a stored download; nothing when the media was no longer pending. */
  async markDownloaded(id: string, stored: { key: string; size: number; sha256: string; mimeType: string }): Promise<void> {
    await this.endDownload(id, {
      status: 'ready',
      mime_type: stored.mimeType,
      size: stored.size,
      sha256: stored.sha256,
      storage_key: stored.key,
    });
  }

  /** Ends a download for good: `failed`, or `expired` when the channel no longer has the media. */
  async markUndownloadable(id: string, status: 'failed' | 'expired', error: string): Promise<void> {
    await this.endDownload(id, { status, error: toStorable(error) });
  }

  private async endDownload(id: string, change: Parameters<MediaRepository['finishDownload']>[2]): Promise<void> {
    await this.database.transaction(async (db) => {
      if (!(await this.media.finishDownload(db, id, change))) return;
      for (const listener of this.downloadEndListeners) await listener(db, id);
    });
  }

  /**
   * Pipes `source` through `intake` into the store. Whatever fails (the source, a refusal of the
   * intake, the store), nothing is left in the store and the first cause is thrown, a refusal
   * first: the other streams only fail because it stopped them.
   */
  private async storeStream(key: string, source: Readable, intake: MediaIntake): Promise<void> {
    const results = await Promise.allSettled([pipeline(source, intake), this.store.put(key, intake)]);
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (failures.length === 0) return;
    if (!source.destroyed) source.destroy();
    await this.store.delete(key).catch(() => undefined);
    throw failures.find((failure) => failure instanceof MediaRefusal) ?? failures[0];
  }
}

/** A failed upload as the API answers it: the intake's refusal, or a multipart body that broke off. */
export function uploadRefusal(error: unknown): Error {
  if (error instanceof MediaRefusal) {
    if (error.status === 413) return new PayloadTooLargeException(error.message);
    if (error.status === 415) return new UnsupportedMediaTypeException(error.message);
    return new BadRequestException(error.message);
  }
  if (error instanceof HttpException) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new PayloadTooLargeException(`The file is larger than WhatsApp takes for any media`);
  // The request's own stream failing (busboy: a malformed or truncated multipart body; the client going away).
  if (
    typeof code === 'string'
      ? code.startsWith('FST_') || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE'
      : isBusboyError(error)
  ) {
    return new BadRequestException('The multipart body is malformed or ended before the file did');
  }
  return error instanceof Error ? error : new Error(String(error));
}

function isBusboyError(error: unknown): boolean {
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && /multipart|part terminated|malformed|unexpected end/i.test(message);
}

/** A file name as stored: no path, no control characters, at most 240 characters; null when nothing is left. */
function cleanFilename(name: string | undefined): string | null {
  const base = toStorable(name ?? '')
    .split(/[/\\]/)
    .pop()!
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, MAX_FILENAME_LENGTH);
  return base === '' || base === '.' || base === '..' ? null : base;
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};

/** `med_….jpg` for a media without a name of its own. */
function defaultFilename(row: MediaRow): string {
  const extension = EXTENSIONS[row.mime_type.split(';')[0].trim().toLowerCase()];
  return `${toPublicId('med', row.id)}${extension ? `.${extension}` : ''}`;
}

/** Whether the channel's SHA-256 (hex, or base64 as webhooks give it) is this hex digest. */
export function sameSha256(channel: string, hex: string): boolean {
  const given = channel.trim();
  if (/^[0-9a-f]{64}$/i.test(given)) return given.toLowerCase() === hex;
  return Buffer.from(given, 'base64').toString('hex') === hex;
}
