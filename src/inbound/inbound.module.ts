import { Module } from '@nestjs/common';
import { AutomationModule } from '../automation/automation.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { InboxesModule } from '../inboxes/inboxes.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { ChannelErrorRepository } from './channel-error.repository';
import { ChannelErrorsController } from './channel-errors.controller';
import { TemplatesModule } from '../templates/templates.module';
import { DeadLetterRepository } from './dead-letter.repository';
import { DeadLettersController } from './dead-letters.controller';
import { InboundController } from './inbound.controller';
import { InboundService } from './inbound.service';

@Module({
  imports: [AutomationModule, CampaignsModule, ContactsModule, ConversationsModule, InboxesModule, NotificationsModule, TemplatesModule],
  controllers: [InboundController, DeadLettersController, ChannelErrorsController],
  providers: [InboundService, DeadLetterRepository, ChannelErrorRepository],
})
export class InboundModule {}
