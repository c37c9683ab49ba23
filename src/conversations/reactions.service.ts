import { Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import type { CustomerAddress } from '../channel/channel-client';
import { newUuid, parsePublicId } from '../common/ids';
import { ContactsService } from '../contacts/contacts.service';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import type { UserRow } from '../users/user.entity';
import { ConversationRepository } from './conversation.repository';
import { ConversationsService } from './conversations.service';
import { assertWithinCustomerWindow } from './customer-window';
import { MessageResponse, ReactionDto, ReactionResponse } from './message.dto';
import type { MessageRow } from './message.entity';
import { MessageRepository } from './message.repository';
import { CUSTOMER_REACTOR, type ReactionRow } from './reaction.entity';
import { ReactionRepository } from './reaction.repository';
import { MessageReactionEvent } from './conversation.events';

/** The channel delivers no reaction to a message older than this (error 131009). */
const REACTABLE_FOR_MS = 30 * 24 * 3600_000;
/** Types the channel takes no reaction to: a reaction itself, and the channel's own system notices. */
const UNREACTABLE_TYPES = new Set(['reaction', 'system']);

/** A customer's reaction as the channel webhook carried it. */
export interface CustomerReaction {
  /** The channel id of the reaction message itself. */
  channelMessageId: string;
  /** The channel id of the message reacted to. */
  targetChannelMessageId: string;
  emoji: string;
  sentAt: Date;
}

/**
 * Reactions are not messages of their own: each is attached to the message it reacts to, one per
 * reactor (the customer, each agent), and an empty emoji removes it. An agent's reaction is also
 * sent to the channel, as recorded work of its own (`reaction_sends`), so it never appears in the
 * thread as a message.
 */
@Injectable()
export class ReactionsService {
  constructor(
    private readonly database: Database,
    private readonly messages: MessageRepository,
    private readonly reactions: ReactionRepository,
    private readonly conversationRows: ConversationRepository,
    private readonly conversations: ConversationsService,
    private readonly events: EventsService,
    private readonly contacts: ContactsService,
  ) {}

  /**
   * An agent reacts to a customer's message of this conversation (or takes their reaction back
   * with an empty emoji); answers the message reacted to with its reactions. A reaction is a
   * free-form message to the channel, so only within the 24-hour window, and only to a message of
   * the last 30 days (the channel delivers no other). The same emoji again changes and sends nothing.
   */
  async react(conversationId: string, dto: ReactionDto, actor: UserRow): Promise<MessageResponse> {
    const targetId = parsePublicId('msg', dto.message_id);
    return this.database.transaction(async (db) => {
      const conversation = await this.conversationRows.lock(db, conversationId);
      if (!conversation) throw new NotFoundException('Conversation not found');
      const now = new Date();
      await this.contacts.assertNotBlocked(db, conversation.contact_id);
      assertWithinCustomerWindow(conversation, now, 'reactions cannot be sent');
      const target = targetId === null ? null : await this.messages.findInConversation(db, conversationId, targetId);
      if (!target) throw new UnprocessableEntityException('reaction.message_id does not name a message of this conversation');
      if (target.direction !== 'inbound' || target.channel_message_id === null || UNREACTABLE_TYPES.has(target.type)) {
        throw new UnprocessableEntityException(
          "reaction.message_id must name a customer's message: the channel takes reactions to no other",
        );
      }
      if (now.getTime() - (target.channel_timestamp ?? target.created_at).getTime() > REACTABLE_FOR_MS) {
        throw new UnprocessableEntityException(
          'reaction.message_id names a message more than 30 days old: the channel takes no reaction to it',
        );
      }
      const current = await this.reactions.lock(db, target.id, actor.id);
      if ((current?.emoji ?? '') !== dto.emoji) {
        const reaction: ReactionRow = {
          message_id: target.id,
          reactor: actor.id,
          emoji: dto.emoji,
          channel_message_id: null,
          channel_timestamp: null,
          created_at: now,
        };
        await this.reactions.upsert(db, reaction);
        await this.reactions.queueSend(db, {
          id: newUuid(now.getTime()),
          messageId: target.id,
          userId: actor.id,
          emoji: dto.emoji,
          at: now,
        });
        return this.recordReaction(db, target, reaction);
      }
      return this.present(db, target);
    });
  }

  /**
   * A customer's reaction from the channel webhook, in its transaction: attached to the message it
   * reacts to when that is a message of this customer's conversation, recording message.reaction.
   * Answers false when the service does not know that message (the caller stores the reaction as
   * a message of its own). A reaction older than the one already attached (a redelivery) changes nothing.
   */
  async applyCustomerReaction(db: Db, customer: CustomerAddress, reaction: CustomerReaction): Promise<boolean> {
    const target = await this.messages.findByChannelId(db, reaction.targetChannelMessageId);
    if (!target) return false;
    const conversation = await this.conversations.findWithCustomer(db, target.conversation_id);
    const sameCustomer =
      (customer.userId !== null && conversation.customer_wa_user_id === customer.userId) ||
      (customer.phone !== null && conversation.customer_phone === customer.phone);
    if (!sameCustomer) return false;
    const current = await this.reactions.lock(db, target.id, CUSTOMER_REACTOR);
    if (current?.channel_message_id === reaction.channelMessageId) return true;
    if (current?.channel_timestamp && current.channel_timestamp > reaction.sentAt) return true;
    const row: ReactionRow = {
      message_id: target.id,
      reactor: CUSTOMER_REACTOR,
      emoji: reaction.emoji,
      channel_message_id: reaction.channelMessageId,
      channel_timestamp: reaction.sentAt,
      created_at: new Date(),
    };
    await this.reactions.upsert(db, row);
    if ((current?.emoji ?? '') !== reaction.emoji) await this.recordReaction(db, target, row);
    return true;
  }

  async markSent(id: string, channelMessageId: string): Promise<void> {
    await this.reactions.finishSend(this.database.db, id, { status: 'sent', channelMessageId, error: null });
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.reactions.finishSend(this.database.db, id, { status: 'failed', channelMessageId: null, error });
  }

  /** Records message.reaction: the message reacted to, with its reactions now, and the change (an empty emoji: removed). */
  private async recordReaction(db: Db, target: MessageRow, reaction: ReactionRow): Promise<MessageResponse> {
    const message = await this.present(db, target);
    const inboxId = (await this.conversationRows.inboxOf(db, target.conversation_id))!;
    await this.events.record(db, 'message.reaction', MessageReactionEvent.of(message, ReactionResponse.of(reaction)), { inboxId });
    return message;
  }

  private async present(db: Db, message: MessageRow): Promise<MessageResponse> {
    const conversation = await this.conversations.findWithCustomer(db, message.conversation_id);
    return MessageResponse.of(message, conversation.customer_phone, await this.reactions.forMessages(db, [message.id]));
  }
}
