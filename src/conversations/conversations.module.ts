import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { InboxesModule } from '../inboxes/inboxes.module';
import { LabelsModule } from '../labels/labels.module';
import { TeamsModule } from '../teams/teams.module';
import { MediaModule } from '../media/media.module';
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
import { TypingService } from './typing.service';
import { NotesService } from './notes.service';
import { ConversationUpkeep } from './conversation-upkeep';
import { MessageSendProcessor } from './message-send.processor';
import { ReactionSendProcessor } from './reaction-send.processor';
import { ReadReceiptProcessor } from './read-receipt.processor';
import { SendJournal } from './send-journal';

@Module({
  imports: [ContactsModule, InboxesModule, MediaModule, NotificationsModule, UsersModule, TemplatesModule, LabelsModule, TeamsModule],
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
    NotesService,
    TypingService,
    ConversationUpkeep,
    SendJournal,
    MessageSendProcessor,
    ReactionSendProcessor,
    ReadReceiptProcessor,
  ],
  exports: [ConversationsService, MessagesService, NotesService, ReactionsService, ReadsService],
})
export class ConversationsModule {}
