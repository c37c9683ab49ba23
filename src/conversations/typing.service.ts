import { Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InboxChannels } from '../channel/channel-client';
import { AppConfig } from '../config/app-config';
import { ContactsService } from '../contacts/contacts.service';
import { Database } from '../database/database';
import { ConversationRepository } from './conversation.repository';
import { ConversationsService } from './conversations.service';
import { isWithinCustomerWindow } from './customer-window';
import { MessageRepository } from './message.repository';

/** The channel shows "typing…" for 25 s; asked again sooner it would only repeat itself. */
export const TYPING_REPEAT_MS = 20_000;

/**
 * "Typing…" shown to the customer while an agent writes: the channel's read status of their
 * newest message with a typing indicator. It is a moment's courtesy, not a record: it is sent
 * after the answer without being recorded or retried, and a failure is only logged.
 */
@Injectable()
export class TypingService {
  private readonly logger = new Logger(TypingService.name);

  constructor(
    private readonly database: Database,
    private readonly conversations: ConversationsService,
    private readonly conversationRows: ConversationRepository,
    private readonly messages: MessageRepository,
    private readonly contacts: ContactsService,
    private readonly channels: InboxChannels,
    private readonly config: AppConfig,
  ) {}

  /**
   * Answers whether "typing…" goes to the customer (404 for an unknown conversation). It does not
   * with MESSAGING_READ_RECEIPTS=false (the channel shows it only with a read receipt), outside
   * the 24-hour window (the agent can only send a template, which the customer does not see being
   * typed), to a blocked customer or through a disabled inbox, without a message of theirs the
   * channel knows, or within TYPING_REPEAT_MS of the last time.
   */
  async show(conversationId: string): Promise<boolean> {
    const db = this.database.db;
    const conversation = await this.conversationRows.find(db, conversationId);
    if (!conversation) throw new NotFoundException('Conversation not found');
    if (!this.config.messagingReadReceipts || !isWithinCustomerWindow(conversation, new Date())) return false;
    if ((await this.contacts.isBlocked(db, conversation.contact_id)) || !(await this.conversations.inboxSends(db, conversation)))
      return false;
    const newest = await this.messages.newest(db, conversationId, 'inbound');
    if (!newest?.channel_message_id) return false;
    if (!(await this.conversationRows.claimTyping(db, conversationId, TYPING_REPEAT_MS))) return false;
    const channelMessageId = newest.channel_message_id;
    void this.channels
      .of(conversation.inbox_id)
      .then((channel) => channel.showTyping(channelMessageId))
      .catch((error: unknown) =>
        this.logger.warn(`"Typing…" for conversation ${conversationId} was not shown: ${(error as Error).message}`),
      );
    return true;
  }
}
