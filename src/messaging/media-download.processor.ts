import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { toPublicId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { MessagesService } from '../conversations/messages.service';
import { Database } from '../database/database';
import { OutboxRelay } from '../events/outbox-relay';
import type { MediaRow } from '../media/media.entity';
import { MediaIntegrityError, MediaService } from '../media/media.service';
import { JobQueue, retryDelay, WorkItem } from '../queue/job-queue';
import { MEDIA_TRANSFER_TIMEOUT_MS } from './graph-api.channel';
import { ChannelError, MessagingChannel } from './messaging-channel';

/** Longer than an attempt can take (the lookup, then the transfer's own timeout): a crash mid-download leaves the media due again after this. */
const DOWNLOAD_LEASE_MS = MEDIA_TRANSFER_TIMEOUT_MS + 60_000;
/** Downloads one instance runs at once: each streams, so memory stays flat; the channel's bandwidth is the limit. */
const DOWNLOAD_CONCURRENCY = 8;

/**
 * Downloads customers' media from the channel into the media store, one attempt per job: the
 * media row recorded with the message is the record of the work, handed on by the relay and
 * claimed for exactly one attempt. A failed attempt (the channel down or throttling, a broken
 * transfer, bytes that do not match the channel's SHA-256) is retried on
 * MEDIA_DOWNLOAD_RETRY_SCHEDULE, the last delay repeating, for as long as the channel keeps the
 * media (7 days from the message); then the media is `expired`, as it is at once when the channel
 * says it no longer has it. A refusal that no retry can change ends it `failed`. Each ending
 * records `message.media` with the message, in the same transaction.
 */
@Injectable()
export class MediaDownloadProcessor implements OnModuleInit {
  private readonly logger = new Logger(MediaDownloadProcessor.name);

  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly channel: MessagingChannel,
    private readonly media: MediaService,
    private readonly messages: MessagesService,
    private readonly database: Database,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register('media.download', { handle: (work) => this.download(work), concurrency: DOWNLOAD_CONCURRENCY });
    this.relay.addWorkSource({
      job: 'media.download',
      claimDue: (db, limit, leaseMs) => this.media.claimDueDownloads(db, limit, leaseMs),
      releaseAbandoned: (db) => this.media.releaseAbandonedDownloads(db),
    });
  }

  async download(work: WorkItem): Promise<void> {
    const media = await this.media.claimDownload(work, DOWNLOAD_LEASE_MS);
    if (!media) return;
    if (media.available_until && media.available_until.getTime() <= Date.now()) {
      return this.end(media, 'expired', `The channel keeps a media 7 days; it was not downloaded in time (${media.error ?? 'no attempt'})`);
    }
    try {
      const download = await this.channel.downloadMedia(media.channel_media_id!);
      const stored = await this.media.storeDownload(media, download.body, {
        sha256: download.sha256 ?? media.channel_sha256,
        size: download.size,
      });
      await this.database.transaction(async (db) => {
        const ready = await this.media.markDownloaded(db, media.id, { ...stored, mimeType: download.mimeType ?? media.mime_type });
        if (ready) await this.messages.recordMediaSettled(db, media.id);
      });
    } catch (error) {
      await this.failed(media, error);
    }
  }

  private async failed(media: MediaRow, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof ChannelError && error.gone) return this.end(media, 'expired', `The channel no longer has this media: ${reason}`);
    if (error instanceof ChannelError && !error.retryable) return this.end(media, 'failed', reason);
    if (!(error instanceof ChannelError) && !(error instanceof MediaIntegrityError)) {
      // The store or the database: worth a line with its stack, and retried like the channel.
      this.logger.error(`Downloading media ${toPublicId('med', media.id)} failed: ${reason}`, (error as Error).stack);
    }
    const next = new Date(Date.now() + retryDelay(this.config.mediaDownloadRetryScheduleMs, media.attempts));
    if (media.available_until && next >= media.available_until) {
      return this.end(
        media,
        'expired',
        `The channel dropped the media before a download succeeded (${media.attempts} attempts; last: ${reason})`,
      );
    }
    this.logger.warn(
      `Download attempt ${media.attempts} of media ${toPublicId('med', media.id)} failed, retrying at ${next.toISOString()}: ${reason}`,
    );
    await this.media.retryDownloadAt(media.id, next, reason);
  }

  private async end(media: MediaRow, status: 'failed' | 'expired', reason: string): Promise<void> {
    this.logger.warn(`Media ${toPublicId('med', media.id)} is ${status}: ${reason}`);
    await this.database.transaction(async (db) => {
      const ended = await this.media.markUndownloadable(db, media.id, status, reason);
      if (ended) await this.messages.recordMediaSettled(db, media.id);
    });
  }
}
