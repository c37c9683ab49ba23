import { BadRequestException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { mapPage, Page } from '../common/pagination';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { NotificationsService } from '../notifications/notifications.service';
import type { UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ConversationResponse, ListConversationsQuery, UpdateConversationDto } from './conversation.dto';
import type { ConversationRow, ConversationWithCustomer } from './conversation.entity';
import { ConversationFilter, ConversationRepository } from './conversation.repository';
import { MessageRepository } from './message.repository';

const publicUserId = (id: string | null) => (id ? toPublicId('user', id) : null);

/** The repository's filter for a list query: `me` is the caller, `none` the unassigned ones. */
export function conversationFilterOf(query: ListConversationsQuery, callerId: string): ConversationFilter {
  const assignedTo =
    query.assigned_to === undefined
      ? undefined
      : query.assigned_to === 'none'
        ? null
        : query.assigned_to === 'me'
          ? callerId
          : parsePublicId('user', query.assigned_to)!;
  return { status: query.status, assignedTo, q: query.q };
}

@Injectable()
export class ConversationsService {
  constructor(
    private readonly database: Database,
    private readonly conversations: ConversationRepository,
    private readonly messages: MessageRepository,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly users: UsersService,
  ) {}

  /** Newest activity first. */
  async list(query: ListConversationsQuery, caller: UserRow): Promise<Page<ConversationResponse>> {
    return mapPage(await this.conversations.list(this.database.db, conversationFilterOf(query, caller.id), query), ConversationResponse.of);
  }

  async get(id: string): Promise<ConversationResponse> {
    return ConversationResponse.of(await this.findWithCustomer(this.database.db, id));
  }

  /** Closes, reopens, assigns or unassigns; each real change records its event. */
  async update(id: string, dto: UpdateConversationDto, actor: UserRow): Promise<ConversationResponse> {
    if (dto.status === undefined && dto.assigned_to === undefined) throw new BadRequestException('Body must contain status or assigned_to');
    const assigneeId = dto.assigned_to === undefined || dto.assigned_to === null ? dto.assigned_to : parsePublicId('user', dto.assigned_to);
    if (assigneeId === null && dto.assigned_to !== null) throw new UnprocessableEntityException('assigned_to does not name a user');

    return this.database.transaction(async (db) => {
      const conversation = await this.conversations.lock(db, id);
      if (!conversation) throw new NotFoundException('Conversation not found');
      if (assigneeId && !(await this.users.exists(db, assigneeId)))
        throw new UnprocessableEntityException('assigned_to does not name a user');

      const statusChanged = dto.status !== undefined && dto.status !== conversation.status;
      const assigneeChanged = assigneeId !== undefined && assigneeId !== conversation.assigned_to;
      if (statusChanged || assigneeChanged) {
        await this.conversations.setStatusAndAssignee(
          db,
          id,
          dto.status ?? conversation.status,
          assigneeId === undefined ? conversation.assigned_to : assigneeId,
          new Date(),
        );
      }
      const updated = ConversationResponse.of(await this.findWithCustomer(db, id));
      if (statusChanged)
        await this.events.record(db, dto.status === 'closed' ? 'conversation.closed' : 'conversation.reopened', { conversation: updated });
      if (assigneeChanged) {
        await this.events.record(db, 'conversation.assigned', {
          conversation: updated,
          assigned_to: publicUserId(assigneeId ?? null),
          previous_assigned_to: publicUserId(conversation.assigned_to),
          assigned_by: publicUserId(actor.id),
        });
        if (assigneeId && assigneeId !== actor.id) {
          await this.notifications.notify(db, {
            userId: assigneeId,
            type: 'conversation.assigned',
            conversationId: id,
            text: `${actor.name} assigned you the conversation with ${updated.customer.name}`,
          });
        }
      }
      return updated;
    });
  }

  /**
   * The contact's conversation inside the caller's transaction, created if new and reopened if
   * closed (recording conversation.created / conversation.reopened), locked until commit.
   */
  async openForContact(db: Db, contactId: string, at: Date): Promise<ConversationRow> {
    const fresh: ConversationRow = {
      id: newUuid(at.getTime()),
      contact_id: contactId,
      status: 'open',
      assigned_to: null,
      last_message_at: at,
      last_inbound_at: null,
      created_at: at,
      updated_at: at,
    };
    const created = await this.conversations.insertUnlessContactHasOne(db, fresh);
    const conversation = (await this.conversations.lockByContact(db, contactId))!;
    if (created) {
      await this.events.record(db, 'conversation.created', {
        conversation: ConversationResponse.of(await this.findWithCustomer(db, conversation.id)),
      });
    } else if (conversation.status === 'closed') {
      Object.assign(conversation, { status: 'open', updated_at: at });
      await this.conversations.setStatusAndAssignee(db, conversation.id, 'open', conversation.assigned_to, at);
      await this.events.record(db, 'conversation.reopened', {
        conversation: ConversationResponse.of(await this.findWithCustomer(db, conversation.id)),
      });
    }
    return conversation;
  }

  /**
   * Two customers become one (a contact merge), in the caller's transaction, after the caller has
   * locked both contacts: the conversation of `fromContactId`, if any, becomes part of the one of
   * `intoContactId`, so the customer still has one conversation.
   * - Only the other customer has one: it becomes this customer's (see `moveToContact` for its window).
   * - Both have one: the other's messages move into this one's (the thread orders them by time),
   *   and so do the notifications about it; the other conversation is deleted. This one takes the
   *   later last_message_at, is open if either was open, and keeps its assignee, or takes the
   *   other's when it had none (recorded as conversation.reopened / conversation.assigned). Its
   *   24-hour window stays its own: replies go to this customer's phone.
   */
  async mergeCustomerThreads(db: Db, intoContactId: string, fromContactId: string, actor: UserRow): Promise<void> {
    const into = await this.conversations.lockByContact(db, intoContactId);
    const from = await this.conversations.lockByContact(db, fromContactId);
    if (!from) return;
    const now = new Date();
    if (!into) {
      await this.conversations.moveToContact(db, from.id, intoContactId, now);
      return;
    }
    await this.messages.moveToConversation(db, from.id, into.id);
    await this.notifications.moveToConversation(db, from.id, into.id);
    const merged = {
      status: into.status === 'open' || from.status === 'open' ? ('open' as const) : ('closed' as const),
      assigned_to: into.assigned_to ?? from.assigned_to,
      last_message_at: into.last_message_at > from.last_message_at ? into.last_message_at : from.last_message_at,
      updated_at: now,
    };
    await this.conversations.absorb(db, into.id, merged);
    await this.conversations.delete(db, from.id);
    if (merged.status === into.status && merged.assigned_to === into.assigned_to) return;
    const conversation = ConversationResponse.of(await this.findWithCustomer(db, into.id));
    if (merged.status !== into.status) await this.events.record(db, 'conversation.reopened', { conversation });
    if (merged.assigned_to !== into.assigned_to) {
      await this.events.record(db, 'conversation.assigned', {
        conversation,
        assigned_to: publicUserId(merged.assigned_to),
        previous_assigned_to: null,
        assigned_by: publicUserId(actor.id),
      });
    }
  }

  /** The conversation with its customer, or a 404. */
  async findWithCustomer(db: Db, id: string): Promise<ConversationWithCustomer> {
    const conversation = await this.conversations.findWithCustomer(db, id);
    if (!conversation) throw new NotFoundException('Conversation not found');
    return conversation;
  }
}
