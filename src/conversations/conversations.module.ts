import { Module } from '@nestjs/common';
import { LabelsModule } from '../labels/labels.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { UsersModule } from '../users/users.module';
import { ConversationRepository } from './conversation.repository';
import { ConversationsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';
import { MessageRepository } from './message.repository';
import { MessagesService } from './messages.service';
import { NotesService } from './notes.service';
import { SnoozeWakeUp } from './snooze-wake-up';

@Module({
  imports: [NotificationsModule, UsersModule, LabelsModule],
  controllers: [ConversationsController],
  providers: [ConversationRepository, MessageRepository, ConversationsService, MessagesService, NotesService, SnoozeWakeUp],
  exports: [ConversationsService, MessagesService],
})
export class ConversationsModule {}
