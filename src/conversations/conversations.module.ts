import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { TemplatesModule } from '../templates/templates.module';
import { UsersModule } from '../users/users.module';
import { ConversationRepository } from './conversation.repository';
import { ConversationsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';
import { MessageRepository } from './message.repository';
import { MessagesController } from './messages.controller';
import { MessagesService } from './messages.service';
import { ReactionRepository } from './reaction.repository';
import { ReactionsService } from './reactions.service';
import { ReadRepository } from './read.repository';
import { ReadsService } from './reads.service';

@Module({
  imports: [NotificationsModule, UsersModule, TemplatesModule],
  controllers: [ConversationsController, MessagesController],
  providers: [
    ConversationRepository,
    MessageRepository,
    ReactionRepository,
    ReadRepository,
    ConversationsService,
    MessagesService,
    ReactionsService,
    ReadsService,
  ],
  exports: [ConversationsService, MessagesService, ReactionsService, ReadsService],
})
export class ConversationsModule {}
