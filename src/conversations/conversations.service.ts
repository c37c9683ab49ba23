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
   * `reopen: false` leaves a closed one closed (a system message is not the customer writing).
   */
  async openForContact(db: Db, contactId: string, at: Date, { reopen = true } = {}): Promise<ConversationRow> {
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
    } else if (conversation.status === 'closed' && reopen) {
      Object.assign(conversation, { status: 'open', updated_at: at });
      await this.conversations.setStatusAndAssignee(db, conversation.id, 'open', conversation.assigned_to, at);
      await this.events.record(db, 'conversation.reopened', {
        conversation: ConversationResponse.of(await this.findWithCustomer(db, conversation.id)),
      });
    }
    return conversation;
  }

  /** The conversation with its customer, or a 404. */
  async findWithCustomer(db: Db, id: string): Promise<ConversationWithCustomer> {
    const conversation = await this.conversations.findWithCustomer(db, id);
    if (!conversation) throw new NotFoundException('Conversation not found');
    return conversation;
  }
}
