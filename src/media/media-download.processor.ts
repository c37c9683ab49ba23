import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ChannelError, InboxChannels, MEDIA_TRANSFER_TIMEOUT_MS } from '../channel/channel-client';
import { toPublicId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { retryDelay } from '../queue/job-queue';
import { RecordedWork } from '../recorded-work/recorded-work';
import type { WorkFailure } from '../recorded-work/work-kind';
import type { MediaRow } from './media.entity';
import { DOWNLOAD_WORK } from './media.repository';
import { MediaIntegrityError, MediaService } from './media.service';

/** Longer than an attempt can take (the lookup, then the transfer's own timeout): a crash mid-download leaves the media due again after this. */
const DOWNLOAD_LEASE_MS = MEDIA_TRANSFER_TIMEOUT_MS + 60_000;
/** Downloads one instance runs at once: each streams, so memory stays flat; the channel's bandwidth is the limit. */
const DOWNLOAD_CONCURRENCY = 8;

/** How a failed download counts: a media the channel no longer has (or kept too long to ask) is `expired`, not `failed`. */
interface DownloadFailure extends WorkFailure {
  expired: boolean;
}

/** The channel's 7 days were over before this attempt. */
class DownloadTooLate extends Error {}

/**
 * Downloads customers' media from the channel into the media store, as recorded work (the media
 * row recorded with the message). A failed attempt (the channel down or throttling, a broken
 * transfer, bytes that do not match the channel's SHA-256) is retried on
 * MEDIA_DOWNLOAD_RETRY_SCHEDULE, the last delay repeating, for as long as the channel keeps the
 * media (7 days from the message); then the media is `expired`, as it is at once when the channel
 * says it no longer has it. A refusal that no retry can change ends it `failed`. Each ending is
 * told to the modules whose records carry the media (MediaService.whenDownloadEnds) in its transaction.
 */
@Injectable()
export class MediaDownloadProcessor implements OnModuleInit {
  private readonly logger = new Logger(MediaDownloadProcessor.name);

  constructor(
    private readonly work: RecordedWork,
    private readonly channels: InboxChannels,
    private readonly media: MediaService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.work.register<MediaRow, DownloadFailure>({
      job: 'media.download',
      ...DOWNLOAD_WORK,
      leaseMs: DOWNLOAD_LEASE_MS,
      concurrency: DOWNLOAD_CONCURRENCY,
      errorColumn: 'error',
      attempt: (media) => this.download(media),
      failure: (error, media) => this.judge(error, media),
      nextAttemptInMs: (media) => {
        const delay = retryDelay(this.config.mediaDownloadRetryScheduleMs, media.attempts);
        return media.available_until && Date.now() + delay >= media.available_until.getTime() ? null : delay;
      },
      fail: (media, failure) => this.end(media, failure),
    });
  }

  private async download(media: MediaRow): Promise<void> {
    if (media.available_until && media.available_until.getTime() <= Date.now()) {
      throw new DownloadTooLate(`The channel keeps a media 7 days; it was not downloaded in time (${media.error ?? 'no attempt'})`);
    }
    // A customer's media is the receiving number's: an inbound row always names its inbox.
    const channel = await this.channels.of(media.inbox_id!);
    const download = await channel.downloadMedia(media.channel_media_id!);
    const stored = await this.media.storeDownload(media, download.body, {
      sha256: download.sha256 ?? media.channel_sha256,
      size: download.size,
    });
    await this.media.markDownloaded(media.id, { ...stored, mimeType: download.mimeType ?? media.mime_type });
  }

  private judge(error: unknown, media: MediaRow): DownloadFailure {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof DownloadTooLate) return { reason, retryable: false, expired: true };
    if (error instanceof ChannelError && error.gone)
      return { reason: `The channel no longer has this media: ${reason}`, retryable: false, expired: true };
    if (error instanceof ChannelError && !error.retryable) return { reason, retryable: false, expired: false };
    if (!(error instanceof ChannelError) && !(error instanceof MediaIntegrityError)) {
      // The store or the database: worth a line with its stack, and retried like the channel.
      this.logger.error(`Downloading media ${toPublicId('med', media.id)} failed: ${reason}`, (error as Error).stack);
    }
    this.logger.warn(`Download attempt ${media.attempts} of media ${toPublicId('med', media.id)} failed: ${reason}`);
    return { reason, retryable: true, expired: false };
  }

  /** A refusal ends the media as judged; a retryable failure ends it only when the channel drops the media before the next attempt. */
  private async end(media: MediaRow, failure: DownloadFailure): Promise<void> {
    const status = failure.retryable || failure.expired ? 'expired' : 'failed';
    const reason = failure.retryable
      ? `The channel dropped the media before a download succeeded (${media.attempts} attempts; last: ${failure.reason})`
      : failure.reason;
    this.logger.warn(`Media ${toPublicId('med', media.id)} is ${status}: ${reason}`);
    await this.media.markUndownloadable(media.id, status, reason);
  }
}
