import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ReactionsService } from '../conversations/reactions.service';
import { OutboxRelay } from '../events/outbox-relay';
import { JobQueue, retryDelay, WorkItem } from '../queue/job-queue';
import { ChannelError, MessagingChannel } from './messaging-channel';
import { toOutboundReaction } from './outbound-message';

/** Longer than a send can take (the channel client's 10 s timeout). */
const SEND_LEASE_MS = 15_000;

/**
 * Sends agents' reactions to the channel, one attempt per job, retried like message sends
 * (MESSAGING_RETRY_SCHEDULE). The reaction_sends row is the record of the work. No send journal:
 * a reaction sent twice sets the same emoji twice, which the customer cannot tell from once.
 */
@Injectable()
export class ReactionSendProcessor implements OnModuleInit {
  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly channel: MessagingChannel,
    private readonly reactions: ReactionsService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register('reaction.send', { handle: (work) => this.send(work) });
    this.relay.addWorkSource({
      job: 'reaction.send',
      claimDue: (db, limit, leaseMs) => this.reactions.claimDueSends(db, limit, leaseMs),
      releaseAbandoned: (db) => this.reactions.releaseAbandonedSends(db),
    });
  }

  async send(work: WorkItem): Promise<void> {
    const reaction = await this.reactions.claimSend(work, SEND_LEASE_MS);
    if (!reaction) return;
    let channelMessageId: string;
    try {
      channelMessageId = await this.channel.send(toOutboundReaction(reaction));
    } catch (error) {
      const retryable = !(error instanceof ChannelError) || error.retryable;
      const schedule = this.config.messagingRetryScheduleMs;
      if (retryable && reaction.attempts <= schedule.length) {
        await this.reactions.retrySendAt(reaction.id, new Date(Date.now() + retryDelay(schedule, reaction.attempts)));
        return;
      }
      await this.reactions.markFailed(reaction.id, error instanceof ChannelError ? error.message : 'The channel could not be reached');
      return;
    }
    await this.reactions.markSent(reaction.id, channelMessageId);
  }
}
