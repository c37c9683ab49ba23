import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ReadsService } from '../conversations/reads.service';
import { OutboxRelay } from '../events/outbox-relay';
import { JobQueue, retryDelay, WorkItem } from '../queue/job-queue';
import { ChannelError, MessagingChannel } from './messaging-channel';

/** Longer than a call can take (the channel client's 10 s timeout). */
const RECEIPT_LEASE_MS = 15_000;

/**
 * Tells the channel that a customer's message was read, one attempt per job, retried like message
 * sends (MESSAGING_RETRY_SCHEDULE). The read_receipts row (one per message) is the record of the
 * work, so two agents or two replicas reading the conversation make one call.
 */
@Injectable()
export class ReadReceiptProcessor implements OnModuleInit {
  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly channel: MessagingChannel,
    private readonly reads: ReadsService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register('read-receipt.send', { handle: (work) => this.send(work) });
    this.relay.addWorkSource({
      job: 'read-receipt.send',
      claimDue: (db, limit, leaseMs) => this.reads.claimDueReceipts(db, limit, leaseMs),
      releaseAbandoned: (db) => this.reads.releaseAbandonedReceipts(db),
    });
  }

  async send(work: WorkItem): Promise<void> {
    const receipt = await this.reads.claimReceipt(work, RECEIPT_LEASE_MS);
    if (!receipt) return;
    try {
      await this.channel.markRead(receipt.channel_message_id);
    } catch (error) {
      const retryable = !(error instanceof ChannelError) || error.retryable;
      const schedule = this.config.messagingRetryScheduleMs;
      if (retryable && receipt.attempts <= schedule.length) {
        await this.reads.retryReceiptAt(receipt.id, new Date(Date.now() + retryDelay(schedule, receipt.attempts)));
        return;
      }
      await this.reads.markReceiptFailed(receipt.id, error instanceof ChannelError ? error.message : 'The channel could not be reached');
      return;
    }
    await this.reads.markReceiptSent(receipt.id);
  }
}
