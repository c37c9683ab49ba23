import { ConflictException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { newUuid } from '../common/ids';
import { searchWords } from '../common/search';
import { mapPage, Page, PageQuery } from '../common/pagination';
import { Database } from '../database/database';
import { InstanceRegistry } from '../database/instance-registry';
import { isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { OutboxRelay } from '../events/outbox-relay';
import type { WorkItem } from '../queue/job-queue';
import type { UserRow } from '../users/user.entity';
import { ConversationResponse } from './conversation.dto';
import { CUSTOMER_WINDOW_MS, type ConversationRow } from './conversation.entity';
import { ConversationRepository } from './conversation.repository';
import { ConversationsService } from './conversations.service';
import { MEDIA_TYPES, MessageResponse, SearchMessagesQuery, SendMessageDto } from './message.dto';
import type { MessageRow, MessageStatus, MessageToSend } from './message.entity';
import { MessageRepository } from './message.repository';

/** The channel's customer-service window: free-form messages only this long after the customer's last one. */

/** Outbound statuses only move forward; the channel reports them out of order. */
const STATUS_RANK: Record<'queued' | 'sent' | 'delivered' | 'read', number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

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
  constructor(
    private readonly database: Database,
    private readonly messages: MessageRepository,
    private readonly conversationRows: ConversationRepository,
    private readonly conversations: ConversationsService,
    private readonly events: EventsService,
    private readonly relay: OutboxRelay,
    private readonly instance: InstanceRegistry,
  ) {}

  /** The thread, newest first. */
  async list(conversationId: string, query: PageQuery): Promise<Page<MessageResponse>> {
    const conversation = await this.conversations.findWithCustomer(this.database.db, conversationId);
    const page = await this.messages.list(this.database.db, conversationId, query);
    return mapPage(page, (message) => MessageResponse.of(message, conversation.customer_phone));
  }

  /** Messages of every thread that contain every word of `q`, newest first. */
  async search(query: SearchMessagesQuery): Promise<Page<MessageResponse>> {
    const page = await this.messages.search(this.database.db, searchWords(query.q), query);
    return mapPage(page, (message) => MessageResponse.of(message, message.customer_phone));
  }

  /**
   * Queues a message to the customer: stored `queued` and due, with its `message.sent` event, in
   * one transaction; the relay hands it to the send job after the commit, and the send happens
   * after the answer, with retries.
   */
  async send(conversationId: string, dto: SendMessageDto, actor: UserRow, idempotencyKey: string | null): Promise<SendResult> {
    const requestHash = idempotencyKey ? hashRequest(conversationId, dto) : null;
    if (idempotencyKey) {
      const earlier = await this.replay(actor, idempotencyKey, requestHash!);
      if (earlier) return earlier;
    }
    const { type, text, content } = payloadOf(dto);
    let result: SendResult;
    try {
      result = await this.database.transaction(async (db) => {
        const conversation = await this.conversationRows.lock(db, conversationId);
        if (!conversation) throw new NotFoundException('Conversation not found');
        const now = new Date();
        if (
          type !== 'template' &&
          (!conversation.last_inbound_at || now.getTime() - conversation.last_inbound_at.getTime() > CUSTOMER_WINDOW_MS)
        ) {
          throw new UnprocessableEntityException(
            "The customer's last message is more than 24 hours old: only template messages can be sent",
          );
        }
        const queued: MessageRow = {
          id: newUuid(now.getTime()),
          conversation_id: conversationId,
          direction: 'outbound',
          type,
          text,
          content,
          status: 'queued',
          error: null,
          channel_message_id: null,
          sent_by: actor.id,
          idempotency_key: idempotencyKey,
          request_hash: requestHash,
          channel_timestamp: null,
          attempts: 0,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        };
        await this.messages.insert(db, queued);
        await this.conversationRows.recordOutbound(db, conversationId, now);
        const withCustomer = await this.conversations.findWithCustomer(db, conversationId);
        const message = MessageResponse.of(queued, withCustomer.customer_phone);
        await this.events.record(db, 'message.sent', { message, conversation: ConversationResponse.of(withCustomer) });
        return { message, replayed: false };
      });
    } catch (error) {
      if (idempotencyKey && isUniqueViolation(error, 'messages_idempotency_key')) {
        const earlier = await this.replay(actor, idempotencyKey, requestHash!);
        if (earlier) return earlier;
      }
      throw error;
    }
    this.relay.wake();
    return result;
  }

  /** The relay's hand-off of due sends. */
  claimDueSends(db: Db, limit: number, leaseMs: number): Promise<WorkItem[]> {
    return this.messages.claimDue(db, limit, leaseMs);
  }

  /** Sends whose attempt died with its instance, due again. */
  releaseAbandonedSends(db: Db): Promise<number> {
    return this.messages.releaseAbandoned(db);
  }

  /** Takes a queued message for one send attempt; null when it is no longer queued or another worker took this attempt. */
  claimSend(work: WorkItem, leaseMs: number): Promise<MessageToSend | null> {
    return this.messages.claimSend(this.database.db, work, leaseMs, this.instance.id);
  }

  async markSent(messageId: string, channelMessageId: string): Promise<void> {
    await this.finishSend(messageId, { status: 'sent', channel_message_id: channelMessageId, error: null });
  }

  async markFailed(messageId: string, error: string): Promise<void> {
    await this.finishSend(messageId, { status: 'failed', channel_message_id: null, error });
  }

  /** The attempt failed and another follows at `at`; the relay hands it on then. */
  async retrySendAt(messageId: string, at: Date): Promise<void> {
    await this.messages.scheduleSendAttempt(this.database.db, messageId, at);
  }

  /** Whether the channel delivered this message before: a redelivery must not reopen a conversation closed since. */
  isKnown(db: Db, channelMessageId: string): Promise<boolean> {
    return this.messages.existsWithChannelId(db, channelMessageId);
  }

  /** Stores an inbound message in the caller's transaction; null when the channel sent it before. */
  async recordInbound(db: Db, conversation: ConversationRow, inbound: InboundMessage): Promise<MessageRow | null> {
    const now = new Date();
    const message: MessageRow = {
      id: newUuid(now.getTime()),
      conversation_id: conversation.id,
      direction: 'inbound',
      type: inbound.type,
      text: inbound.text,
      content: inbound.content,
      status: 'received',
      error: null,
      channel_message_id: inbound.channelMessageId,
      sent_by: null,
      idempotency_key: null,
      request_hash: null,
      channel_timestamp: inbound.sentAt,
      attempts: 0,
      next_attempt_at: null,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.messages.insert(db, message))) return null;
    await this.conversationRows.recordInbound(db, conversation.id, now, inbound.sentAt);
    return message;
  }

  /** Moves an outbound message forward along its statuses (never backwards), recording message.status. */
  async applyChannelStatus(db: Db, status: ChannelStatus): Promise<void> {
    const from: MessageStatus[] =
      status.status === 'failed'
        ? ['queued', 'sent']
        : (Object.keys(STATUS_RANK) as (keyof typeof STATUS_RANK)[]).filter(
            (s) => STATUS_RANK[s] < STATUS_RANK[status.status as keyof typeof STATUS_RANK],
          );
    const moved = await this.messages.moveStatus(db, status.channelMessageId, from, {
      status: status.status,
      error: status.error,
      at: status.at,
    });
    if (moved) await this.recordStatusEvent(db, moved);
  }

  private async finishSend(
    messageId: string,
    change: { status: MessageStatus; channel_message_id: string | null; error: string | null },
  ): Promise<void> {
    await this.database.transaction(async (db) => {
      const moved = await this.messages.finishSend(db, messageId, change);
      if (moved) await this.recordStatusEvent(db, moved);
    });
  }

  private async recordStatusEvent(db: Db, message: MessageRow): Promise<void> {
    const conversation = await this.conversations.findWithCustomer(db, message.conversation_id);
    await this.events.record(db, 'message.status', {
      message: MessageResponse.of(message, conversation.customer_phone),
      conversation_id: ConversationResponse.of(conversation).id,
    });
  }

  /** The first answer to this Idempotency-Key, or a 409 if the key came with another request. */
  private async replay(actor: UserRow, idempotencyKey: string, requestHash: string): Promise<SendResult | null> {
    const earlier = await this.messages.findByIdempotencyKey(this.database.db, actor.id, idempotencyKey);
    if (!earlier) return null;
    if (earlier.request_hash !== requestHash) throw new ConflictException('Idempotency-Key was already used with a different request');
    const conversation = await this.conversations.findWithCustomer(this.database.db, earlier.conversation_id);
    return { message: MessageResponse.of(earlier, conversation.customer_phone), replayed: true };
  }
}

/**
 * The stored type, text and payload of a message to send, as the API took it (the messaging
 * module turns it into the channel's shape); exactly one payload field must be present.
 */
function payloadOf(dto: SendMessageDto): { type: string; text: string | null; content: Record<string, unknown> | null } {
  const present = (['text', 'template', ...MEDIA_TYPES] as const).filter((field) => dto[field] !== undefined);
  const stray = present.find((field) => field !== dto.type);
  if (stray) throw new UnprocessableEntityException(`${stray} does not go with type ${dto.type}`);
  if (dto.type === 'text') return { type: 'text', text: dto.text!, content: null };
  if (dto.type === 'template') {
    const { name, language, components } = dto.template!;
    return { type: 'template', text: null, content: { name, language, ...(components ? { components } : {}) } };
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
