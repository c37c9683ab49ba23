import { Injectable, OnModuleInit } from '@nestjs/common';
import { channelFailure, InboxChannels } from '../channel/channel-client';
import { AppConfig } from '../config/app-config';
import { RecordedWork } from '../recorded-work/recorded-work';
import { onSchedule } from '../recorded-work/work-kind';
import type { ReactionToSend } from './reaction.entity';
import { REACTION_SEND_WORK } from './reaction.repository';
import { ReactionsService } from './reactions.service';
import { toOutboundReaction } from './outbound-message';

/** Longer than a send can take (the channel client's 10 s timeout). */
const SEND_LEASE_MS = 15_000;

/**
 * Sends agents' reactions to the channel, as recorded work (the reaction_sends row), retried like
 * message sends (MESSAGING_RETRY_SCHEDULE). No send journal: a reaction sent twice sets the same
 * emoji twice, which the customer cannot tell from once.
 */
@Injectable()
export class ReactionSendProcessor implements OnModuleInit {
  constructor(
    private readonly work: RecordedWork,
    private readonly channels: InboxChannels,
    private readonly reactions: ReactionsService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.work.register<ReactionToSend>({
      job: 'reaction.send',
      ...REACTION_SEND_WORK,
      leaseMs: SEND_LEASE_MS,
      attempt: async (reaction) =>
        this.reactions.markSent(reaction.id, await (await this.channels.of(reaction.inbox_id)).send(toOutboundReaction(reaction))),
      failure: channelFailure,
      nextAttemptInMs: onSchedule(() => this.config.messagingRetryScheduleMs),
      fail: (reaction, failure) => this.reactions.markFailed(reaction.id, failure.reason),
    });
  }
}
