import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MessagesService } from '../conversations/messages.service';
import { JobContext, JobQueue } from '../queue/job-queue';
import { ChannelError, MessagingChannel } from './messaging-channel';

/** A message still queued this long after it was written has lost its job (a crash) or is retrying. */
const REQUEUE_AFTER_MS = 60_000;
const REQUEUE_EVERY_MS = 30_000;

/**
 * Sends queued messages through the channel. 429, 5xx and network errors are retried on
 * MESSAGING_RETRY_SCHEDULE; any other refusal, or the last failed attempt, marks the message
 * failed with the channel's reason. The message row is the record of the work, so messages whose
 * job was lost are queued again (job id = message id: a job still waiting is not doubled).
 */
@Injectable()
export class MessageSendProcessor implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MessageSendProcessor.name);
  private requeueTimer?: NodeJS.Timeout;

  constructor(
    private readonly queue: JobQueue,
    private readonly channel: MessagingChannel,
    private readonly messages: MessagesService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register<{ messageId: string }>('message.send', {
      retryDelaysMs: this.config.messagingRetryScheduleMs,
      handle: ({ messageId }, context) => this.send(messageId, context),
    });
  }

  onApplicationBootstrap(): void {
    void this.requeueLost(0);
    this.requeueTimer = setInterval(() => void this.requeueLost(REQUEUE_AFTER_MS), REQUEUE_EVERY_MS).unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.requeueTimer);
  }

  async send(messageId: string, { final }: JobContext): Promise<void> {
    const outbound = await this.messages.outboundForSending(messageId);
    if (!outbound) return;
    let channelMessageId: string;
    try {
      channelMessageId = await this.channel.send(outbound);
    } catch (error) {
      const retryable = !(error instanceof ChannelError) || error.retryable;
      if (retryable && !final) throw error;
      await this.messages.markFailed(messageId, error instanceof ChannelError ? error.message : 'The channel could not be reached');
      return;
    }
    await this.messages.markSent(messageId, channelMessageId);
  }

  private async requeueLost(olderThanMs: number): Promise<void> {
    try {
      for (const id of await this.messages.stillQueued(olderThanMs)) await this.messages.enqueueSend(id);
    } catch (error) {
      this.logger.warn(`Could not look for queued messages: ${(error as Error).message}`);
    }
  }
}
