import { ConflictException, Injectable, Logger, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { newUuid } from '../common/ids';
import { decodeCursor, Page, PageQuery, toPage } from '../common/pagination';
import { isUniqueViolation } from '../database/errors';
import { EventsService } from '../events/events.service';
import type { OutboundMessage } from '../messaging/messaging-channel';
import { JobQueue } from '../queue/job-queue';
import type { User } from '../users/user.entity';
import { Conversation } from './conversation.entity';
import { ConversationResponse } from './conversation.dto';
import { ConversationsService } from './conversations.service';
import { MEDIA_TYPES, MessageResponse, SendMessageDto } from './message.dto';
import { Message, MessageStatus } from './message.entity';

/** The channel's customer-service window: free-form messages only this long after the customer's last one. */
const CUSTOMER_WINDOW_MS = 24 * 3600_000;

/** Outbound statuses only move forward; the channel reports them out of order. */
const STATUS_RANK: Record<'queued' | 'sent' | 'delivered' | 'read', number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

/** The columns MessageResponse.of reads, as a Message, for the status updates' RETURNING. */
const MESSAGE_RETURNING = `id, conversation_id AS "conversationId", direction, type, text, content, status, error, sent_by AS "sentBy", created_at AS "createdAt"`;

/** An inbound channel message, already parsed into what is stored. */
export interface InboundMessage {
  channelMessageId: string;
  type: string;
  text: string | null;
  content: Record<string, unknown> | null;
  sentAt: Date;
}

/** A status the channel reported for an outbound message. */
export interface ChannelStatus {
  channelMessageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  error: string | null;
  at: Date;
}

export interface SendResult {
  message: MessageResponse;
  /** True when an Idempotency-Key matched an earlier request: nothing was sent again. */
  replayed: boolean;
}

@Injectable()
export class MessagesService {
  private readonly logger = new Logger(MessagesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly conversations: ConversationsService,
    private readonly events: EventsService,
    private readonly queue: JobQueue,
  ) {}

  /** The thread, newest first. */
  async list(conversationId: string, query: PageQuery): Promise<Page<MessageResponse>> {
    const conversation = await this.conversations.findRow(this.dataSource.manager, conversationId);
    const builder = this.dataSource
      .getRepository(Message)
      .createQueryBuilder('m')
      .where('m.conversation_id = :conversationId', { conversationId })
      .orderBy('m.created_at', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .limit(query.limit + 1);
    if (query.cursor) {
      const [createdAt, id] = decodeCursor(query.cursor, ['timestamp', 'uuid']);
      builder.andWhere('(m.created_at, m.id) < (:createdAt, :id)', { createdAt, id });
    }
    const rows = await builder.getMany();
    return toPage(rows, query.limit, (m) => [m.createdAt.toISOString(), m.id], (m) => MessageResponse.of(m, conversation.customer_phone));
  }

  /**
   * Queues a message to the customer: stored `queued` with its `message.sent` event in one
   * transaction, then handed to the send job. The send happens after the answer, with retries.
   */
  async send(conversationId: string, dto: SendMessageDto, actor: User, idempotencyKey: string | null): Promise<SendResult> {
    const requestHash = idempotencyKey ? hashRequest(conversationId, dto) : null;
    if (idempotencyKey) {
      const earlier = await this.replay(actor, idempotencyKey, requestHash!);
      if (earlier) return earlier;
    }
    const { type, text, content } = payloadOf(dto);
    let message: Message;
    let customerPhone: string;
    try {
      ({ message, customerPhone } = await this.dataSource.transaction(async (manager) => {
        const conversation = await manager.findOne(Conversation, { where: { id: conversationId }, lock: { mode: 'pessimistic_write' } });
        if (!conversation) throw new NotFoundException('Conversation not found');
        const now = new Date();
        if (type !== 'template' && (!conversation.lastInboundAt || now.getTime() - conversation.lastInboundAt.getTime() > CUSTOMER_WINDOW_MS)) {
          throw new UnprocessableEntityException("The customer's last message is more than 24 hours old: only template messages can be sent");
        }
        const queued = manager.create(Message, {
          id: newUuid(now.getTime()),
          conversationId,
          direction: 'outbound',
          type,
          text,
          content,
          status: 'queued',
          error: null,
          channelMessageId: null,
          sentBy: actor.id,
          idempotencyKey,
          requestHash,
          channelTimestamp: null,
          createdAt: now,
          updatedAt: now,
        });
        await manager.insert(Message, queued);
        await manager.update(Conversation, { id: conversationId }, { lastMessageAt: now, updatedAt: now });
        const row = await this.conversations.findRow(manager, conversationId);
        await this.events.record(manager, 'message.sent', { message: MessageResponse.of(queued, row.customer_phone), conversation: ConversationResponse.of(row) });
        return { message: queued, customerPhone: row.customer_phone };
      }));
    } catch (error) {
      if (idempotencyKey && isUniqueViolation(error, 'messages_idempotency_key')) {
        const earlier = await this.replay(actor, idempotencyKey, requestHash!);
        if (earlier) return earlier;
      }
      throw error;
    }
    await this.enqueueSend(message.id);
    return { message: MessageResponse.of(message, customerPhone), replayed: false };
  }

  /** What the send job hands to the channel, or null when the message is no longer waiting to be sent. */
  async outboundForSending(messageId: string): Promise<OutboundMessage | null> {
    const rows: { type: string; text: string | null; content: Record<string, unknown> | null; phone: string }[] = await this.dataSource.query(
      `SELECT m.type, m.text, m.content, ct.phone FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN contacts ct ON ct.id = c.contact_id
       WHERE m.id = $1 AND m.status = 'queued'`,
      [messageId],
    );
    const row = rows[0];
    if (!row) return null;
    return { to: row.phone, type: row.type, content: row.type === 'text' ? { body: row.text, preview_url: false } : (row.content ?? {}) };
  }

  async markSent(messageId: string, channelMessageId: string): Promise<void> {
    await this.moveQueued(messageId, { status: 'sent', channel_message_id: channelMessageId, error: null });
  }

  async markFailed(messageId: string, error: string): Promise<void> {
    await this.moveQueued(messageId, { status: 'failed', channel_message_id: null, error });
  }

  /** Ids of outbound messages still queued after `olderThanMs`: their job was lost (a crash) or is still retrying. */
  async stillQueued(olderThanMs: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM messages WHERE status = 'queued' AND created_at < $1 ORDER BY created_at LIMIT 1000`,
      [new Date(Date.now() - olderThanMs)],
    );
    return rows.map((row) => row.id);
  }

  async enqueueSend(messageId: string): Promise<void> {
    try {
      await this.queue.add('message.send', { messageId }, messageId);
    } catch (error) {
      // The message is recorded as queued; the periodic re-queue picks it up once the queue is back.
      this.logger.warn(`Could not queue message ${messageId} for sending: ${(error as Error).message}`);
    }
  }

  /** Stores an inbound message in the caller's transaction; null when the channel sent it before. */
  async recordInbound(manager: EntityManager, conversation: Conversation, inbound: InboundMessage): Promise<Message | null> {
    const now = new Date();
    const message = manager.create(Message, {
      id: newUuid(now.getTime()),
      conversationId: conversation.id,
      direction: 'inbound',
      type: inbound.type,
      text: inbound.text,
      content: inbound.content,
      status: 'received',
      error: null,
      channelMessageId: inbound.channelMessageId,
      sentBy: null,
      idempotencyKey: null,
      requestHash: null,
      channelTimestamp: inbound.sentAt,
      createdAt: now,
      updatedAt: now,
    });
    const inserted: unknown[] = await manager.query(
      `INSERT INTO messages (id, conversation_id, direction, type, text, content, status, channel_message_id, channel_timestamp, created_at, updated_at)
       VALUES ($1, $2, 'inbound', $3, $4, $5, 'received', $6, $7, $8, $8) ON CONFLICT (channel_message_id) WHERE channel_message_id IS NOT NULL DO NOTHING RETURNING id`,
      [message.id, conversation.id, message.type, message.text, message.content === null ? null : JSON.stringify(message.content), message.channelMessageId, message.channelTimestamp, now],
    );
    if (inserted.length === 0) return null;
    await manager.query(
      `UPDATE conversations SET last_message_at = GREATEST(last_message_at, $2), last_inbound_at = GREATEST(last_inbound_at, $3), updated_at = $2 WHERE id = $1`,
      [conversation.id, now, inbound.sentAt],
    );
    return message;
  }

  /** Moves an outbound message forward along its statuses (never backwards), recording message.status. */
  async applyChannelStatus(manager: EntityManager, status: ChannelStatus): Promise<void> {
    const forwardFrom = status.status === 'failed' ? ['queued', 'sent'] : Object.keys(STATUS_RANK).filter((s) => STATUS_RANK[s as keyof typeof STATUS_RANK] < STATUS_RANK[status.status as keyof typeof STATUS_RANK]);
    const [rows]: [Message[], number] = await manager.query(
      `UPDATE messages SET status = $2, error = $3, updated_at = $4 WHERE channel_message_id = $1 AND direction = 'outbound' AND status = ANY($5)
       RETURNING ${MESSAGE_RETURNING}`,
      [status.channelMessageId, status.status, status.error, status.at, forwardFrom],
    );
    if (rows[0]) await this.recordStatusEvent(manager, rows[0]);
  }

  private async moveQueued(messageId: string, change: { status: MessageStatus; channel_message_id: string | null; error: string | null }): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [rows]: [Message[], number] = await manager.query(
        `UPDATE messages SET status = $2, channel_message_id = COALESCE($3, channel_message_id), error = $4, updated_at = now() WHERE id = $1 AND status = 'queued'
         RETURNING ${MESSAGE_RETURNING}`,
        [messageId, change.status, change.channel_message_id, change.error],
      );
      if (rows[0]) await this.recordStatusEvent(manager, rows[0]);
    });
  }

  private async recordStatusEvent(manager: EntityManager, message: Message): Promise<void> {
    const row = await this.conversations.findRow(manager, message.conversationId);
    await this.events.record(manager, 'message.status', { message: MessageResponse.of(message, row.customer_phone), conversation_id: ConversationResponse.of(row).id });
  }

  /** The first answer to this Idempotency-Key, or a 409 if the key came with another request. */
  private async replay(actor: User, idempotencyKey: string, requestHash: string): Promise<SendResult | null> {
    const earlier = await this.dataSource.getRepository(Message).findOneBy({ sentBy: actor.id, idempotencyKey });
    if (!earlier) return null;
    if (earlier.requestHash !== requestHash) throw new ConflictException('Idempotency-Key was already used with a different request');
    const row = await this.conversations.findRow(this.dataSource.manager, earlier.conversationId);
    return { message: MessageResponse.of(earlier, row.customer_phone), replayed: true };
  }
}

/** The stored type, text and channel payload of a message to send; exactly one payload field must be present. */
function payloadOf(dto: SendMessageDto): { type: string; text: string | null; content: Record<string, unknown> | null } {
  const present = (['text', 'template', ...MEDIA_TYPES] as const).filter((field) => dto[field] !== undefined);
  const stray = present.find((field) => field !== dto.type);
  if (stray) throw new UnprocessableEntityException(`${stray} does not go with type ${dto.type}`);
  if (dto.type === 'text') return { type: 'text', text: dto.text!, content: null };
  if (dto.type === 'template') {
    const { name, language, components } = dto.template!;
    return { type: 'template', text: null, content: { name, language: { code: language }, ...(components ? { components } : {}) } };
  }
  const media = dto[dto.type]!;
  return { type: dto.type, text: media.caption ?? null, content: { ...media } };
}

/** The same request body (whatever its key order) for the same conversation hashes the same. */
function hashRequest(conversationId: string, dto: SendMessageDto): string {
  return createHash('sha256').update(stableJson({ conversationId, dto })).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
