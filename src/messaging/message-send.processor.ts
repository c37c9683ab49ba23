import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { MessageToSend } from '../conversations/message.entity';
import { MessagesService } from '../conversations/messages.service';
import { MediaService } from '../media/media.service';
import { OutboxRelay } from '../events/outbox-relay';
import { JobQueue, retryDelay, WorkItem } from '../queue/job-queue';
import { MEDIA_TRANSFER_TIMEOUT_MS } from './graph-api.channel';
import { ChannelError, MessagingChannel } from './messaging-channel';
import { toOutboundMessage } from './outbound-message';
import { AnsweredSend, SendJournal } from './send-journal';
import { Metrics } from '../metrics/metrics';

/**
 * Longer than a send can take (the channel client's 10 s timeout, after uploading its media for up
 * to MEDIA_TRANSFER_TIMEOUT_MS): a crash mid-send leaves the message due again after this.
 */
const SEND_LEASE_MS = MEDIA_TRANSFER_TIMEOUT_MS + 15_000;

/**
 * Sends queued messages through the channel, one attempt per job. 429, 5xx and network errors
 * are tried again on MESSAGING_RETRY_SCHEDULE; any other refusal, or the last failed attempt,
 * marks the message failed with the channel's reason. The message row is the record of the work:
 * the relay hands each due attempt on, and the claim on the row for that attempt keeps it once.
 * A message with one of our media first uploads its bytes to the channel, unless the channel
 * still has an earlier upload of them, and is sent by the channel's id; an upload that fails is
 * retried like the send.
 */
@Injectable()
export class MessageSendProcessor implements OnModuleInit {
  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly channel: MessagingChannel,
    private readonly messages: MessagesService,
    private readonly config: AppConfig,
    private readonly journal: SendJournal,
    private readonly media: MediaService,
    private readonly metrics: Metrics,
  ) {}

  /** Before the relay hands on any send (it starts at bootstrap): the answers a killed process had not recorded. */
  async onModuleInit(): Promise<void> {
    await this.journal.recoverAbandoned(async (answers) => {
      for (const answer of answers) await this.messages.markSent(answer.messageId, answer.channelMessageId);
    });
    this.queue.register('message.send', { handle: (work) => this.send(work) });
    this.relay.addWorkSource({
      job: 'message.send',
      claimDue: (db, limit, leaseMs) => this.messages.claimDueSends(db, limit, leaseMs),
      releaseAbandoned: (db) => this.messages.releaseAbandonedSends(db),
    });
  }

  async send(work: WorkItem): Promise<void> {
    const message = await this.messages.claimSend(work, SEND_LEASE_MS);
    if (!message) return;
    const earlier = this.journal.answerFor(message.id);
    if (earlier) return this.recordSent(earlier, message);
    let channelMessageId: string;
    try {
      channelMessageId = await this.channel.send(toOutboundMessage(message, await this.channelMediaIdOf(message)));
    } catch (error) {
      const retryable = !(error instanceof ChannelError) || error.retryable;
      const schedule = this.config.messagingRetryScheduleMs;
      if (retryable && message.attempts <= schedule.length) {
        await this.messages.retrySendAt(message.id, new Date(Date.now() + retryDelay(schedule, message.attempts)));
        return;
      }
      await this.messages.markFailed(message.id, error instanceof ChannelError ? error.message : 'The channel could not be reached');
      this.observeDelivery(message, 'failed');
      return;
    }
    this.journal.answered({ messageId: message.id, channelMessageId });
    await this.recordSent({ messageId: message.id, channelMessageId }, message);
  }

  private observeDelivery(message: MessageToSend, outcome: 'sent' | 'failed'): void {
    this.metrics.messageDelivery.observe({ outcome }, (Date.now() - message.created_at.getTime()) / 1000);
  }

  /** The channel's id of the message's media, uploaded now unless a fresh earlier upload has one; null without media. */
  private async channelMediaIdOf(message: MessageToSend): Promise<string | null> {
    if (!message.media_id) return null;
    const media = await this.media.get(message.media_id);
    if (!media) throw new ChannelError('The media of this message no longer exists', false);
    const fresh = this.media.freshChannelUpload(media);
    if (fresh) return fresh;
    const channelMediaId = await this.channel.uploadMedia({
      body: await this.media.read(media),
      size: Number(media.size),
      mimeType: media.mime_type.split(';')[0].trim(),
      filename: media.filename ?? `${media.kind}`,
    });
    await this.media.recordChannelUpload(media.id, channelMediaId);
    return channelMediaId;
  }

  private async recordSent(answer: AnsweredSend, message: MessageToSend): Promise<void> {
    await this.messages.markSent(answer.messageId, answer.channelMessageId);
    this.journal.settle(answer.messageId);
    this.observeDelivery(message, 'sent');
  }
}
