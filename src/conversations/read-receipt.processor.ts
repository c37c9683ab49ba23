import { Injectable, OnModuleInit } from '@nestjs/common';
import { channelFailure, InboxChannels } from '../channel/channel-client';
import { AppConfig } from '../config/app-config';
import { RecordedWork } from '../recorded-work/recorded-work';
import { onSchedule } from '../recorded-work/work-kind';
import type { ReadReceiptToSend } from './read.entity';
import { READ_RECEIPT_WORK } from './read.repository';
import { ReadsService } from './reads.service';

/** Longer than a call can take (the channel client's 10 s timeout). */
const RECEIPT_LEASE_MS = 15_000;

/**
 * Tells the channel that a customer's message was read, as recorded work, retried like message
 * sends (MESSAGING_RETRY_SCHEDULE). The read_receipts row (one per message) is the record of the
 * work, so two agents or two replicas reading the conversation make one call.
 */
@Injectable()
export class ReadReceiptProcessor implements OnModuleInit {
  constructor(
    private readonly work: RecordedWork,
    private readonly channels: InboxChannels,
    private readonly reads: ReadsService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.work.register<ReadReceiptToSend>({
      job: 'read-receipt.send',
      ...READ_RECEIPT_WORK,
      leaseMs: RECEIPT_LEASE_MS,
      attempt: async (receipt) => {
        await (await this.channels.of(receipt.inbox_id)).markRead(receipt.channel_message_id);
        await this.reads.markReceiptSent(receipt.id);
      },
      failure: channelFailure,
      nextAttemptInMs: onSchedule(() => this.config.messagingRetryScheduleMs),
      fail: (receipt, failure) => this.reads.markReceiptFailed(receipt.id, failure.reason),
    });
  }
}
