import { Injectable } from '@nestjs/common';
import type { Db } from '../database/sql';
import { CampaignRepository } from './campaign.repository';

/** A customer's message answers the campaign messages sent to their conversation in the week before: their recipients count as replied. */
@Injectable()
export class CampaignRepliesService {
  constructor(private readonly campaigns: CampaignRepository) {}

  /** In the transaction that stores the customer's message. */
  async afterCustomerMessage(db: Db, conversationId: string, at: Date): Promise<void> {
    await this.campaigns.markReplied(db, conversationId, at);
  }
}
