import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { InboxesModule } from '../inboxes/inboxes.module';
import { TemplatesModule } from '../templates/templates.module';
import { CampaignDispatchProcessor } from './campaign-dispatch.processor';
import { CampaignRepliesService } from './campaign-replies.service';
import { CampaignRepository } from './campaign.repository';
import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';
import { OptOutService } from './opt-out.service';

/** Outreach to customers: template campaigns to an audience, paced as recorded work, and the customers' own opt-out of them (STOP and START). */
@Module({
  imports: [ContactsModule, ConversationsModule, InboxesModule, TemplatesModule],
  controllers: [CampaignsController],
  providers: [CampaignRepository, CampaignsService, CampaignDispatchProcessor, CampaignRepliesService, OptOutService],
  exports: [OptOutService, CampaignRepliesService],
})
export class CampaignsModule {}
