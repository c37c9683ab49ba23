import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { UsersModule } from '../users/users.module';
import { ConversationRepository } from './conversation.repository';
import { ConversationsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';
import { MessageRepository } from './message.repository';
import { MessagesService } from './messages.service';

@Module({
  imports: [MediaModule, NotificationsModule, UsersModule],
  controllers: [ConversationsController],
  providers: [ConversationRepository, MessageRepository, ConversationsService, MessagesService],
  exports: [ConversationsService, MessagesService],
})
export class ConversationsModule {}
