import { Injectable, UnprocessableEntityException } from '@nestjs/common';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { Database } from '../database/database';
import { EventsService } from '../events/events.service';
import { NotificationsService } from '../notifications/notifications.service';
import type { Db } from '../database/sql';
import { seesInbox, type UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ConversationResponse } from './conversation.dto';
import { ConversationsService } from './conversations.service';
import { AddNoteDto, MessageResponse } from './message.dto';
import { automatedMessage, type MessageRow } from './message.entity';
import { MessageRepository } from './message.repository';
import { MessageAddedEvent } from './conversation.events';

/**
 * Private notes: messages of the thread with direction `internal`, which the team reads and the
 * customer never does. A note is stored `sent` with nothing due, so the send relay (which claims
 * `queued` rows) never takes it, and a CHECK constraint keeps it so; it does not touch the
 * conversation: not its status, its place in the list (`last_message_at` follows the exchange with
 * the customer) nor the 24-hour window.
 */
@Injectable()
export class NotesService {
  constructor(
    private readonly database: Database,
    private readonly messages: MessageRepository,
    private readonly conversations: ConversationsService,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly users: UsersService,
  ) {}

  /** Stores the note with its note.created event and a `mention` notification for each user it mentions but its author. */
  async add(conversationId: string, dto: AddNoteDto, author: UserRow): Promise<MessageResponse> {
    const mentionIds = [...new Set(dto.mentions ?? [])].map((mention) => {
      const id = parsePublicId('user', mention);
      if (id === null) throw new UnprocessableEntityException(`mentions: ${mention} does not name a user`);
      return { mention, id };
    });
    return this.database.transaction(async (db) => {
      const conversation = await this.conversations.findWithCustomer(db, conversationId);
      for (const { mention, id } of mentionIds) {
        const mentioned = await this.users.find(db, id);
        if (!mentioned) throw new UnprocessableEntityException(`mentions: ${mention} does not name a user`);
        // A mention notifies, with the customer's name: only those who may read the conversation.
        if (!seesInbox(mentioned, conversation.inbox_id))
          throw new UnprocessableEntityException(`mentions: ${mention} does not work this conversation's inbox`);
      }
      const now = new Date();
      const note: MessageRow = {
        id: newUuid(now.getTime()),
        conversation_id: conversationId,
        direction: 'internal',
        type: 'note',
        text: dto.text,
        content: { mentions: mentionIds.map(({ id }) => toPublicId('user', id)) },
        status: 'sent',
        error: null,
        channel_message_id: null,
        sent_by: author.id,
        automated: false,
        idempotency_key: null,
        request_hash: null,
        channel_timestamp: null,
        media_id: null,
        reply_to_id: null,
        referral: null,
        pricing_category: null,
        pricing_type: null,
        pricing_model: null,
        campaign_id: null,
        attempts: 0,
        next_attempt_at: null,
        created_at: now,
        updated_at: now,
      };
      await this.messages.insert(db, note);
      const message = MessageResponse.of(note, conversation.customer_phone);
      const withCustomer = ConversationResponse.of(conversation);
      await this.events.record(db, 'note.created', MessageAddedEvent.of(message, withCustomer));
      for (const { id } of mentionIds) {
        if (id === author.id) continue;
        await this.notifications.notify(db, {
          userId: id,
          type: 'mention',
          conversationId,
          text: `${author.name} mentioned you in a note on the conversation with ${withCustomer.customer.name}`,
        });
      }
      return message;
    });
  }

  /** A note without mentions in the caller's transaction, by an agent's macro or (author null) a rule, which marks it `automated`. */
  async addIn(db: Db, conversationId: string, text: string, authorId: string | null): Promise<void> {
    const now = new Date();
    const note: MessageRow = {
      ...automatedMessage(conversationId, 'note', text, newUuid(now.getTime()), now),
      sent_by: authorId,
      automated: authorId === null,
    };
    await this.messages.insert(db, note);
    const conversation = await this.conversations.findWithCustomer(db, conversationId);
    await this.events.record(
      db,
      'note.created',
      MessageAddedEvent.of(MessageResponse.of(note, conversation.customer_phone), ConversationResponse.of(conversation)),
    );
  }
}
