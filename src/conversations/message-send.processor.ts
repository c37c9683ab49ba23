import { Injectable, OnModuleInit } from '@nestjs/common';
import { ChannelError, InboxChannels, channelFailure, MEDIA_TRANSFER_TIMEOUT_MS } from '../channel/channel-client';
import type { ChannelClient } from '../channel/channel-client';
import { toPublicId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { MediaService } from '../media/media.service';
import { Metrics } from '../metrics/metrics';
import { RecordedWork } from '../recorded-work/recorded-work';
import { onSchedule } from '../recorded-work/work-kind';
import type { MessageToSend } from './message.entity';
import { SEND_WORK } from './message.repository';
import { MessagesService } from './messages.service';
import { toOutboundMessage } from './outbound-message';
import { AnsweredSend, SendJournal } from './send-journal';

/**
 * Longer than a send can take (the channel client's 10 s timeout, after uploading its media for up
 * to MEDIA_TRANSFER_TIMEOUT_MS): a crash mid-send leaves the message due again after this.
 */
const SEND_LEASE_MS = MEDIA_TRANSFER_TIMEOUT_MS + 15_000;
const IN_FLIGHT_AT_CRASH =
  'The service stopped while the channel was taking this campaign message, so whether it arrived is unknown: it is not sent again';

/**
 * Sends queued messages through the channel, as recorded work (the message row). 429, 5xx,
 * network errors and the channel's codes that ask to slow down are tried again on
 * MESSAGING_RETRY_SCHEDULE (not before the pause the channel asked for); any other refusal, or the
 * last failed attempt, marks the message failed with the channel's reason (messaging/channel-errors.ts
 * judges each code), and a broken token or account is recorded on the inbox. A message with one of our
 * media first uploads its bytes to the channel, unless the channel still has an earlier upload of
 * them, and is sent by the channel's id; an upload that fails is retried like the send. The
 * channel's answer is journalled before the database records it (SendJournal).
 */
@Injectable()
export class MessageSendProcessor implements OnModuleInit {
  constructor(
    private readonly work: RecordedWork,
    private readonly channels: InboxChannels,
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
    this.work.register<MessageToSend>({
      job: 'message.send',
      ...SEND_WORK,
      leaseMs: SEND_LEASE_MS,
      attempt: (message) => this.send(message),
      failure: channelFailure,
      nextAttemptInMs: onSchedule(() => this.config.messagingRetryScheduleMs),
      fail: async (message, failure) => {
        await this.messages.markFailed(message.id, failure.reason);
        this.observeDelivery(message, 'failed');
      },
    });
  }

  private async send(message: MessageToSend): Promise<void> {
    const earlier = this.journal.answerFor(message.id);
    if (earlier) return this.recordSent(earlier, message);
    // A campaign never sends anyone twice: an attempt that died while the channel had the message
    // (a kill -9, not a refusal) may have reached the customer, so the message fails instead.
    if (message.campaign_id && message.sending_since) throw new ChannelError(IN_FLIGHT_AT_CRASH, false);
    const channel = await this.channels.of(message.inbox_id);
    const outbound = toOutboundMessage(message, await this.channelMediaIdOf(message, channel));
    // Taken in one statement for this attempt: an attempt of another replica (after this one was
    // thought dead) finds it taken and stands aside.
    if (message.campaign_id && !(await this.messages.markSending(message.id, message.attempts))) return;
    let channelMessageId: string;
    try {
      channelMessageId = await channel.send(outbound);
    } catch (error) {
      // Only a refusal proves the channel did not take it; after a timeout or a 5xx the mark stays, and the next attempt fails it.
      if (message.campaign_id && error instanceof ChannelError && error.refused) await this.messages.clearSending(message.id);
      // Said by the client that was used, so that a refusal of a token an admin has replaced since does not mark the new one broken.
      if (error instanceof ChannelError && error.accountBroken) await this.channels.accountBroken(message.inbox_id, error.message, channel);
      throw error;
    }
    this.journal.answered({ messageId: message.id, channelMessageId });
    await this.recordSent({ messageId: message.id, channelMessageId }, message);
  }

  private observeDelivery(message: MessageToSend, outcome: 'sent' | 'failed'): void {
    this.metrics.messageDelivery.observe({ outcome }, (Date.now() - message.created_at.getTime()) / 1000);
    this.metrics.channelSends.inc({ inbox: toPublicId('inb', message.inbox_id), outcome });
  }

  /**
   * The channel's id of the message's media, uploaded now through the conversation's number unless
   * a fresh earlier upload through that number has one; null without media.
   */
  private async channelMediaIdOf(message: MessageToSend, channel: ChannelClient): Promise<string | null> {
    if (!message.media_id) return null;
    const media = await this.media.get(message.media_id);
    if (!media) throw new ChannelError('The media of this message no longer exists', false);
    const fresh = this.media.freshChannelUpload(media, message.inbox_id);
    if (fresh) return fresh;
    const channelMediaId = await channel.uploadMedia({
      body: await this.media.read(media),
      size: Number(media.size),
      mimeType: media.mime_type.split(';')[0].trim(),
      filename: media.filename ?? `${media.kind}`,
    });
    await this.media.recordChannelUpload(media.id, channelMediaId, message.inbox_id);
    return channelMediaId;
  }

  private async recordSent(answer: AnsweredSend, message: MessageToSend): Promise<void> {
    await this.messages.markSent(answer.messageId, answer.channelMessageId);
    this.journal.settle(answer.messageId);
    this.observeDelivery(message, 'sent');
  }
}
