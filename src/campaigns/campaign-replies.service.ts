import { Injectable } from '@nestjs/common';
import type { ConversationRow } from '../conversations/conversation.entity';
import type { Db } from '../database/sql';
import { CampaignRepository, REPLIES_WITHIN_MS } from './campaign.repository';

/** A customer's message answers the campaign messages sent to their conversation in the week before: their recipients count as replied. */
@Injectable()
export class CampaignRepliesService {
  constructor(private readonly campaigns: CampaignRepository) {}

  /**
   * In the transaction that stores the customer's message, with the conversation's row as it
   * locked it: where no campaign wrote in the week before (nearly every message), nothing is read.
   */
  async afterCustomerMessage(db: Db, conversation: Pick<ConversationRow, 'id' | 'last_campaign_at'>, at: Date): Promise<void> {
    const lastCampaign = conversation.last_campaign_at;
    if (lastCampaign === null || lastCampaign.getTime() <= at.getTime() - REPLIES_WITHIN_MS) return;
    await this.campaigns.markReplied(db, conversation.id, at);
  }
}
