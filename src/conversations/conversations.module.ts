import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { TemplatesModule } from '../templates/templates.module';
import { UsersModule } from '../users/users.module';
import { ConversationRepository } from './conversation.repository';
import { ConversationsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';
import { MessageRepository } from './message.repository';
import { MessagesService } from './messages.service';

@Module({
  imports: [NotificationsModule, UsersModule, TemplatesModule],
  controllers: [ConversationsController],
  providers: [ConversationRepository, MessageRepository, ConversationsService, MessagesService],
  exports: [ConversationsService, MessagesService],
})
export class ConversationsModule {}
