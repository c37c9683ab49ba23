import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { TemplatesModule } from '../templates/templates.module';
import { DeadLetterRepository } from './dead-letter.repository';
import { DeadLettersController } from './dead-letters.controller';
import { InboundController } from './inbound.controller';
import { InboundService } from './inbound.service';

@Module({
  imports: [ContactsModule, ConversationsModule, NotificationsModule, TemplatesModule],
  controllers: [InboundController, DeadLettersController],
  providers: [InboundService, DeadLetterRepository],
})
export class InboundModule {}
