import { BadRequestException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { containsPattern } from '../common/search';
import { contactSearchText } from '../contacts/contact.entity';
import { EventsService } from '../events/events.service';
import { NotificationsService } from '../notifications/notifications.service';
import { User } from '../users/user.entity';
import { Conversation } from './conversation.entity';
import { CONVERSATION_COLUMNS, ConversationResponse, ConversationRow, ListConversationsQuery, UpdateConversationDto } from './conversation.dto';


const publicUserId = (id: string | null) => (id ? toPublicId('user', id) : null);

@Injectable()
export class ConversationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
  ) {}

  /** Newest activity first; every filter combination is served by an index in this order. */
  async list(query: ListConversationsQuery, caller: User): Promise<Page<ConversationResponse>> {
    const { sql, params } = conversationListSql(query, caller.id);
    const rows: ConversationRow[] = await this.dataSource.query(sql, params);
    return toPage(rows, query.limit, (row) => [row.last_message_at.toISOString(), row.id], ConversationResponse.of);
  }

  async get(id: string): Promise<ConversationResponse> {
    return ConversationResponse.of(await this.findRow(this.dataSource.manager, id));
  }

  /** Closes, reopens, assigns or unassigns; each real change records its event. */
  async update(id: string, dto: UpdateConversationDto, actor: User): Promise<ConversationResponse> {
    if (dto.status === undefined && dto.assigned_to === undefined) throw new BadRequestException('Body must contain status or assigned_to');
    const assigneeId = dto.assigned_to === undefined || dto.assigned_to === null ? dto.assigned_to : parsePublicId('user', dto.assigned_to);
    if (assigneeId === null && dto.assigned_to !== null) throw new UnprocessableEntityException('assigned_to does not name a user');

    return this.dataSource.transaction(async (manager) => {
      const conversation = await manager.findOne(Conversation, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!conversation) throw new NotFoundException('Conversation not found');
      if (assigneeId && !(await manager.existsBy(User, { id: assigneeId }))) throw new UnprocessableEntityException('assigned_to does not name a user');

      const statusChanged = dto.status !== undefined && dto.status !== conversation.status;
      const assigneeChanged = assigneeId !== undefined && assigneeId !== conversation.assignedTo;
      const previousAssignee = conversation.assignedTo;
      if (statusChanged || assigneeChanged) {
        await manager.update(Conversation, { id }, { status: dto.status ?? conversation.status, assignedTo: assigneeId === undefined ? conversation.assignedTo : assigneeId, updatedAt: new Date() });
      }
      const updated = ConversationResponse.of(await this.findRow(manager, id));
      if (statusChanged) await this.events.record(manager, dto.status === 'closed' ? 'conversation.closed' : 'conversation.reopened', { conversation: updated });
      if (assigneeChanged) {
        await this.events.record(manager, 'conversation.assigned', {
          conversation: updated,
          assigned_to: publicUserId(assigneeId ?? null),
          previous_assigned_to: publicUserId(previousAssignee),
          assigned_by: publicUserId(actor.id),
        });
        if (assigneeId && assigneeId !== actor.id) {
          await this.notifications.notify(manager, { userId: assigneeId, type: 'conversation.assigned', conversationId: id, text: `${actor.name} assigned you the conversation with ${updated.customer.name}` });
        }
      }
      return updated;
    });
  }

  /**
   * The contact's conversation inside the caller's transaction, created if new and reopened if
   * closed (recording conversation.created / conversation.reopened), locked until commit.
   */
  async openForContact(manager: EntityManager, contactId: string, at: Date): Promise<Conversation> {
    const inserted: { id: string }[] = await manager.query(
      `INSERT INTO conversations (id, contact_id, status, last_message_at, created_at, updated_at) VALUES ($1, $2, 'open', $3, $3, $3)
       ON CONFLICT (contact_id) DO NOTHING RETURNING id`,
      [newUuid(at.getTime()), contactId, at],
    );
    const conversation = await manager.findOneOrFail(Conversation, { where: { contactId }, lock: { mode: 'pessimistic_write' } });
    if (inserted.length > 0) {
      await this.events.record(manager, 'conversation.created', { conversation: ConversationResponse.of(await this.findRow(manager, conversation.id)) });
    } else if (conversation.status === 'closed') {
      conversation.status = 'open';
      conversation.updatedAt = at;
      await manager.update(Conversation, { id: conversation.id }, { status: 'open', updatedAt: at });
      await this.events.record(manager, 'conversation.reopened', { conversation: ConversationResponse.of(await this.findRow(manager, conversation.id)) });
    }
    return conversation;
  }

  /** The conversation with its customer, or a 404. */
  async findRow(manager: EntityManager, id: string): Promise<ConversationRow> {
    const rows: ConversationRow[] = await manager.query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1`, [id]);
    if (!rows[0]) throw new NotFoundException('Conversation not found');
    return rows[0];
  }
}

/**
 * The list query, in one place: the service runs it, the EXPLAIN tests and the bench's raw-pg
 * reference run exactly the same SQL. Fetches one row more than the page to tell if another follows.
 */
export function conversationListSql(query: ListConversationsQuery, callerId: string): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where: string[] = [];
  if (query.status) where.push(`c.status = ${param(query.status)}`);
  if (query.assigned_to === 'none') where.push('c.assigned_to IS NULL');
  else if (query.assigned_to) where.push(`c.assigned_to = ${param(query.assigned_to === 'me' ? callerId : parsePublicId('user', query.assigned_to))}`);
  if (query.q) where.push(`c.contact_id IN (SELECT s.id FROM contacts s WHERE ${contactSearchText('s')} ILIKE ${param(containsPattern(query.q))})`);
  if (query.cursor) {
    const [lastMessageAt, id] = decodeCursor(query.cursor, ['timestamp', 'uuid']);
    where.push(`(c.last_message_at, c.id) < (${param(lastMessageAt)}, ${param(id)})`);
  }
  const sql = `SELECT ${CONVERSATION_COLUMNS} FROM conversations c JOIN contacts ct ON ct.id = c.contact_id
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY c.last_message_at DESC, c.id DESC LIMIT ${param(query.limit + 1)}`;
  return { sql, params };
}
