import {
  BadRequestException,
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleInit,
  UnprocessableEntityException,
} from '@nestjs/common';
import { createHash } from 'node:crypto';
import { interactiveBodyText, interactiveHeaderUpload } from '../channel/interactive-message';
import { newUuid, parsePublicId } from '../common/ids';
import { searchWords } from '../common/search';
import { mapPage, Page, PageQuery } from '../common/pagination';
import { ContactsService } from '../contacts/contacts.service';
import { Database } from '../database/database';
import { isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import type { InboundMedia } from '../media/media.service';
import { MediaService } from '../media/media.service';
import { TemplatesService, type TemplateToSend } from '../templates/templates.service';
import { visibleInboxesOf, type UserRow } from '../users/user.entity';
import { ConversationResponse } from './conversation.dto';
import type { ConversationRow } from './conversation.entity';
import { ConversationRepository } from './conversation.repository';
import { ConversationsService } from './conversations.service';
import { assertWithinCustomerWindow, isWithinCustomerWindow } from './customer-window';
import { MEDIA_TYPES, MediaType, MessageResponse, SearchMessagesQuery, SendMessageDto } from './message.dto';
import { automatedMessage, type MessagePricing, type MessageRow, type MessageStatus } from './message.entity';
import { MessageRepository } from './message.repository';
import { ReactionRepository } from './reaction.repository';
import { ReactionsService } from './reactions.service';
import { MessageAddedEvent, MessageChangeEvent } from './conversation.events';
import { requestedInboxOf } from '../users/requested-inbox';

/** Outbound statuses only move forward; the channel reports them out of order. `played`: a voice message listened to. */
const STATUS_RANK: Record<'queued' | 'sent' | 'delivered' | 'read' | 'played', number> = {
  queued: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  played: 4,
};

/** An inbound channel message, already parsed into what is stored. */
export interface InboundMessage {
  channelMessageId: string;
  type: string;
  text: string | null;
  content: Record<string, unknown> | null;
  sentAt: Date;
  /** The channel id of the message it quotes (`context.id`). */
  quotedChannelMessageId: string | null;
  /** The click-to-WhatsApp ad or post it came from. */
  referral: Record<string, unknown> | null;
  /** A reaction: the channel id of the message reacted to, and the emoji ('' removes). */
  reaction?: { channelMessageId: string; emoji: string };
  /** A `user_changed_number` system message: the customer's new number (E.164). */
  newPhone?: string;
  /** A `user_changed_user_id` system message: the customer's business-scoped user id before and after. */
  previousUserId?: string;
  newUserId?: string;
  /** An image, audio, video, document or sticker: recorded with the message, downloaded afterwards. */
  media: Omit<InboundMedia, 'sentAt' | 'inboxId'> | null;
}

/** A status the channel reported for an outbound message. */
export interface ChannelStatus {
  channelMessageId: string;
  status: 'sent' | 'delivered' | 'read' | 'played' | 'failed';
  error: string | null;
  /** The status's `pricing` (category, type, model), when it has one. */
  pricing: MessagePricing | null;
  at: Date;
}

export interface SendResult {
  message: MessageResponse;
  /** True when an Idempotency-Key matched an earlier request: nothing was sent again. */
  replayed: boolean;
}

@Injectable()
export class MessagesService implements OnModuleInit {
  private readonly logger = new Logger(MessagesService.name);

  constructor(
    private readonly database: Database,
    private readonly messages: MessageRepository,
    private readonly conversationRows: ConversationRepository,
    private readonly conversations: ConversationsService,
    private readonly events: EventsService,
    private readonly reactionRows: ReactionRepository,
    private readonly reactions: ReactionsService,
    private readonly templates: TemplatesService,
    private readonly media: MediaService,
    private readonly contacts: ContactsService,
  ) {}

  onModuleInit(): void {
    this.media.whenDownloadEnds((db, mediaId) => this.recordMediaSettled(db, mediaId));
  }

  /** The thread, newest first, each message with its reactions and media. */
  async list(conversationId: string, query: PageQuery): Promise<Page<MessageResponse>> {
    const conversation = await this.conversations.findWithCustomer(this.database.db, conversationId);
    const page = await this.messages.list(this.database.db, conversationId, query);
    return this.presentPage(page, () => conversation.customer_phone);
  }

  /** Messages of every thread that contain every word of `q`, newest first. */
  async search(query: SearchMessagesQuery, reader: UserRow): Promise<Page<MessageResponse>> {
    const inboxId = requestedInboxOf(query.inbox_id, reader);
    const page = await this.messages.search(this.database.db, searchWords(query.q), query, {
      inboxId,
      visibleInboxes: visibleInboxesOf(reader),
    });
    return this.presentPage(page, (message) => message.customer_phone);
  }

  /**
   * Queues a message to the customer: stored `queued` and due, with its `message.sent` event, in
   * one transaction; the relay hands it to the send job after the commit, and the send happens
   * after the answer, with retries. A template is first checked against the catalogue (422).
   */
  async send(conversationId: string, dto: SendMessageDto, actor: UserRow, idempotencyKey: string | null): Promise<SendResult> {
    const { type, text, content, mediaId, mediaType } = payloadOf(dto);
    // A reaction is no message of its own: setting the same emoji twice changes and sends nothing, so it needs no Idempotency-Key.
    if (type === 'reaction') return { message: await this.reactions.react(conversationId, dto.reaction!, actor), replayed: false };
    const requestHash = idempotencyKey ? hashRequest(conversationId, dto) : null;
    if (idempotencyKey) {
      const earlier = await this.replay(actor, idempotencyKey, requestHash!);
      if (earlier) return earlier;
    }
    const quotedId = dto.reply_to === undefined ? null : parsePublicId('msg', dto.reply_to);
    if (dto.type === 'template') {
      // An unknown conversation is a 404 before anything is said about the template; the check reads the catalogue outside the transaction.
      const conversation = await this.conversations.findWithCustomer(this.database.db, conversationId);
      await this.templates.checkSend(dto.template!, conversation.inbox_id);
    }
    let result: SendResult;
    try {
      result = await this.database.transaction(async (db) => {
        const conversation = await this.conversationRows.lock(db, conversationId);
        if (!conversation) throw new NotFoundException('Conversation not found');
        const now = new Date();
        await this.contacts.assertNotBlocked(db, conversation.contact_id);
        await this.conversations.assertInboxSends(db, conversation);
        if (type !== 'template') assertWithinCustomerWindow(conversation, now);
        const quoted = quotedId === null ? null : await this.quotable(db, conversationId, quotedId);
        const mediaField = type === 'interactive' ? `interactive.header.${mediaType}.media_id` : `${mediaType}.media_id`;
        const media = mediaId === null ? null : await this.mediaToSend(db, mediaType!, mediaId, actor, mediaField);
        if (type === 'document' && content && content.filename === undefined && media?.filename) content.filename = media.filename;
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
          automated: false,
          idempotency_key: idempotencyKey,
          request_hash: requestHash,
          channel_timestamp: null,
          media_id: media?.id ?? null,
          attempts: 0,
          next_attempt_at: now,
          reply_to_id: quoted?.id ?? null,
          referral: null,
          pricing_category: null,
          pricing_type: null,
          pricing_model: null,
          campaign_id: null,
          created_at: now,
          updated_at: now,
        };
        await this.messages.insert(db, queued);
        await this.conversationRows.recordOutbound(db, conversationId, now);
        const withCustomer = await this.conversations.findWithCustomer(db, conversationId);
        const message = MessageResponse.of(queued, withCustomer.customer_phone, [], media ? this.media.describeRow(media) : null);
        await this.events.record(db, 'message.sent', MessageAddedEvent.of(message, ConversationResponse.of(withCustomer)));
        return { message, replayed: false };
      });
    } catch (error) {
      if (idempotencyKey && isUniqueViolation(error, 'messages_idempotency_key')) {
        const earlier = await this.replay(actor, idempotencyKey, requestHash!);
        if (earlier) return earlier;
      }
      throw error;
    }
    return result;
  }

  /**
   * A message automation sends, in the caller's transaction (which holds the conversation): queued
   * and sent like an agent's reply, with its `message.sent` event. `sentBy` null is the inbox
   * itself (a greeting, a rule, the survey: `automated`); a user is an agent's macro, their reply.
   * A template must have passed `TemplatesService.checkSend` (outside the transaction) and may not
   * carry an upload. Nothing is queued to a blocked customer, through an inbox that does not send,
   * or, but for a template, outside the customer's 24 hours: the answer says which, or is the
   * message queued. `campaignId`: the campaign it is sent for.
   */
  async queueAutomatic(
    db: Db,
    conversation: ConversationRow,
    send: AutomaticSend,
    now: Date,
    sentBy: string | null = null,
    campaignId: string | null = null,
  ): Promise<{ queued: MessageRow } | { skipped: string }> {
    if (send.type !== 'template' && !isWithinCustomerWindow(conversation, now)) return { skipped: "outside the customer's 24-hour window" };
    if (await this.contacts.isBlocked(db, conversation.contact_id)) return { skipped: 'the customer is blocked' };
    if (!(await this.conversations.inboxSends(db, conversation))) return { skipped: 'the inbox does not send (disabled)' };
    const payload = automaticPayloadOf(send);
    const queued: MessageRow = {
      ...automatedMessage(conversation.id, 'text', payload.text ?? '', newUuid(now.getTime()), now),
      ...payload,
      sent_by: sentBy,
      automated: sentBy === null,
      campaign_id: campaignId,
    };
    await this.messages.insert(db, queued);
    await this.conversationRows.recordOutbound(db, conversation.id, now, campaignId !== null);
    const withCustomer = await this.conversations.findWithCustomer(db, conversation.id);
    const message = MessageResponse.of(queued, withCustomer.customer_phone, [], null);
    await this.events.record(db, 'message.sent', MessageAddedEvent.of(message, ConversationResponse.of(withCustomer)));
    return { queued };
  }

  /**
   * A message an outbound one may quote: one of this conversation that did not fail (a failed one
   * never reached the customer). One still queued is fine: the channel id is looked up at the
   * send, and a reply whose quoted message has none by then goes without the quote.
   */
  private async quotable(db: Db, conversationId: string, id: string): Promise<MessageRow> {
    const quoted = await this.messages.findInConversation(db, conversationId, id);
    if (!quoted) throw new UnprocessableEntityException('reply_to does not name a message of this conversation');
    if (quoted.status === 'failed') throw new UnprocessableEntityException('reply_to names a message that failed to reach the customer');
    return quoted;
  }

  /** Marks a campaign's message as being with the channel for this attempt; false when another attempt has it, or took it on. */
  markSending(messageId: string, attempt: number): Promise<boolean> {
    return this.messages.markSending(this.database.db, messageId, attempt);
  }

  /** The channel refused the campaign message's attempt: it surely did not reach the customer, and may be tried again. */
  async clearSending(messageId: string): Promise<void> {
    await this.messages.clearSending(this.database.db, messageId);
  }

  async markSent(messageId: string, channelMessageId: string): Promise<void> {
    await this.finishSend(messageId, { status: 'sent', channel_message_id: channelMessageId, error: null });
  }

  async markFailed(messageId: string, error: string): Promise<void> {
    await this.finishSend(messageId, { status: 'failed', channel_message_id: null, error });
  }

  /** Our id of the message the channel knows by `channelMessageId`, or null. */
  async idOfChannelMessage(db: Db, channelMessageId: string): Promise<string | null> {
    return (await this.messages.findByChannelId(db, channelMessageId))?.id ?? null;
  }

  /** Whether the channel delivered this message before: a redelivery must not reopen a conversation closed since. */
  isKnown(db: Db, channelMessageId: string): Promise<boolean> {
    return this.messages.existsWithChannelId(db, channelMessageId);
  }

  /**
   * Stores an inbound message in the caller's transaction and answers it with its conversation as
   * updated (labels included); null when the channel sent it before.
   * A message quoting one of this conversation (`context.id`) replies to it. A customer's message
   * opens the 24-hour window; a system message (`opensWindow: false`) does not.
   */
  async recordInbound(
    db: Db,
    conversation: ConversationRow,
    inbound: InboundMessage,
    opensWindow = true,
  ): Promise<{ message: MessageRow; conversation: ConversationRow & { labels: string[] } } | null> {
    const now = new Date();
    const quoted = inbound.quotedChannelMessageId ? await this.messages.findByChannelId(db, inbound.quotedChannelMessageId) : null;
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
      automated: false,
      idempotency_key: null,
      request_hash: null,
      channel_timestamp: inbound.sentAt,
      media_id: null,
      attempts: 0,
      next_attempt_at: null,
      reply_to_id: quoted?.conversation_id === conversation.id ? quoted.id : null,
      referral: inbound.referral,
      pricing_category: null,
      pricing_type: null,
      pricing_model: null,
      campaign_id: null,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.messages.insert(db, message))) return null;
    // After the message: a repeat the insert skipped leaves no media to download behind.
    if (inbound.media) {
      message.media_id = await this.media.recordInbound(db, { ...inbound.media, sentAt: inbound.sentAt, inboxId: conversation.inbox_id });
      await this.messages.attachMedia(db, message.id, message.media_id);
    }
    const updated = await this.conversationRows.recordInbound(
      db,
      conversation.id,
      { id: message.id, at: now },
      opensWindow ? inbound.sentAt : null,
    );
    return { message, conversation: updated };
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
      pricing: status.pricing,
      at: status.at,
    });
    if (moved) await this.recordStatusEvent(db, moved);
    else if (!(await this.isKnown(db, status.channelMessageId))) {
      // Answered 200 all the same, as the channel expects; said here for whoever sent it by hand (npm run simulate -- --status).
      this.logger.log(`A "${status.status}" status for ${status.channelMessageId}, which names no message here: nothing changed`);
    } else if (status.pricing) await this.messages.setPricing(db, status.channelMessageId, status.pricing);
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

  /**
   * Records `message.media` for the messages of a media whose download settled (ready, failed
   * or expired), in the caller's transaction, so clients can show it without polling.
   */
  private async recordMediaSettled(db: Db, mediaId: string): Promise<void> {
    for (const message of await this.messages.findByMediaId(db, mediaId)) {
      const conversation = await this.conversations.findWithCustomer(db, message.conversation_id);
      await this.events.record(db, 'message.media', MessageChangeEvent.of(await this.present(db, message, conversation.customer_phone)), {
        inboxId: conversation.inbox_id,
      });
    }
  }

  private async recordStatusEvent(db: Db, message: MessageRow): Promise<void> {
    const conversation = await this.conversations.findWithCustomer(db, message.conversation_id);
    await this.events.record(db, 'message.status', MessageChangeEvent.of(await this.present(db, message, conversation.customer_phone)), {
      inboxId: conversation.inbox_id,
    });
  }

  /** A message stored in the caller's transaction, as the API answers it: no reaction can have reached it yet, so only its media is read. */
  async presentNew(db: Db, message: MessageRow, customerPhone: string | null): Promise<MessageResponse> {
    const media = message.media_id ? (await this.media.describe(db, [message.media_id])).get(message.media_id) : null;
    return MessageResponse.of(message, customerPhone, [], media ?? null);
  }

  /** One message as the API answers it, with its reactions and media. */
  private async present(db: Db, message: MessageRow, customerPhone: string | null): Promise<MessageResponse> {
    const reactions = await this.reactionRows.forMessages(db, [message.id]);
    const media = message.media_id ? (await this.media.describe(db, [message.media_id])).get(message.media_id) : null;
    return MessageResponse.of(message, customerPhone, reactions, media ?? null);
  }

  /** A page of messages as the API answers them: their reactions and media in one query each. */
  private async presentPage<Row extends MessageRow>(
    page: Page<Row>,
    phoneOf: (message: Row) => string | null,
  ): Promise<Page<MessageResponse>> {
    const db = this.database.db;
    const reactions = await this.reactionRows.forMessages(
      db,
      page.data.map((message) => message.id),
    );
    const media = await this.media.describe(
      db,
      page.data.map((message) => message.media_id),
    );
    return mapPage(page, (message) =>
      MessageResponse.of(message, phoneOf(message), reactions, message.media_id ? (media.get(message.media_id) ?? null) : null),
    );
  }

  /** The media a message is sent with (`field` names where the request gave it): known (else 422), of the kind the type names, and ready. */
  private async mediaToSend(db: Db, type: MediaType, publicId: string, actor: UserRow, field: string) {
    const uuid = parsePublicId('med', publicId);
    const media = uuid === null ? null : await this.media.takeForSending(db, uuid);
    // A media of an inbox the agent does not see (a customer's, or sent there) is not one they know.
    if (!media || !(await this.media.readableBy(db, actor, media)))
      throw new UnprocessableEntityException(`${field} ${JSON.stringify(publicId)} is not a known media`);
    if (media.kind !== type)
      throw new UnprocessableEntityException(`${field} is ${article(media.kind)} ${media.kind}, not ${article(type)} ${type}`);
    if (media.status !== 'ready') throw new UnprocessableEntityException(`${field} is ${media.status}, not ready to send`);
    return media;
  }

  /** The first answer to this Idempotency-Key, or a 409 if the key came with another request. */
  private async replay(actor: UserRow, idempotencyKey: string, requestHash: string): Promise<SendResult | null> {
    const earlier = await this.messages.findByIdempotencyKey(this.database.db, actor.id, idempotencyKey);
    if (!earlier) return null;
    if (earlier.request_hash !== requestHash) throw new ConflictException('Idempotency-Key was already used with a different request');
    const conversation = await this.conversations.findWithCustomer(this.database.db, earlier.conversation_id);
    return { message: await this.present(this.database.db, earlier, conversation.customer_phone), replayed: true };
  }
}

/**
 * The stored type, text and payload of a message to send, as the API took it (the messaging
 * module turns it into the channel's shape); exactly one payload field must be present.
 */
function payloadOf(dto: SendMessageDto): {
  type: string;
  text: string | null;
  content: Record<string, unknown> | null;
  /** The public `med_` id a media message (or a template's header) is sent with, if any. */
  mediaId: string | null;
  /** The kind of media `mediaId` must be. */
  mediaType: MediaType | null;
} {
  const present = (['text', 'template', 'reaction', 'interactive', ...MEDIA_TYPES] as const).filter((field) => dto[field] !== undefined);
  const stray = present.find((field) => field !== dto.type);
  if (stray) throw new UnprocessableEntityException(`${stray} does not go with type ${dto.type}`);
  if (dto.type === 'reaction') {
    if (dto.reply_to !== undefined) throw new UnprocessableEntityException('reply_to does not go with type reaction');
    return { type: 'reaction', text: null, content: null, mediaId: null, mediaType: null };
  }
  if (dto.type === 'text') return { type: 'text', text: dto.text!, content: null, mediaId: null, mediaType: null };
  if (dto.type === 'interactive') {
    // Stored as the customer sees it: the body as the text a list and the search show, the whole payload as content.
    const interactive = dto.interactive!;
    const header = interactiveHeaderUpload(interactive);
    return {
      type: 'interactive',
      text: interactiveBodyText(interactive),
      content: interactive,
      mediaId: header?.mediaId ?? null,
      mediaType: header?.mediaType ?? null,
    };
  }
  if (dto.type === 'template') {
    const { name, language, components } = dto.template!;
    const header = templateHeaderUpload(components);
    return {
      type: 'template',
      text: null,
      content: { name, language, ...(components ? { components } : {}) },
      mediaId: header?.mediaId ?? null,
      mediaType: header?.mediaType ?? null,
    };
  }
  const media = dto[dto.type]!;
  if (media.link !== undefined && media.media_id !== undefined) {
    throw new BadRequestException(`${dto.type} takes either link or media_id, not both`);
  }
  const caption = 'caption' in media ? (media.caption ?? null) : null;
  return { type: dto.type, text: caption, content: { ...media }, mediaId: media.media_id ?? null, mediaType: dto.type };
}

/**
 * The upload a template's header is sent with (`{"type":"header","parameters":[{"type":"image",
 * "image":{"media_id":"med_…"}}]}`), if any: the message takes it as its media, so the send
 * uploads it to the channel and the upload counts as sent.
 */
function templateHeaderUpload(components: unknown): { mediaId: string; mediaType: MediaType } | null {
  if (!Array.isArray(components)) return null;
  const header = components.find(
    (component): component is { parameters?: unknown } =>
      typeof component === 'object' && component !== null && String((component as { type?: unknown }).type).toLowerCase() === 'header',
  );
  const parameter: unknown = Array.isArray(header?.parameters) ? header.parameters[0] : undefined;
  if (typeof parameter !== 'object' || parameter === null) return null;
  const format = String((parameter as { type?: unknown }).type).toLowerCase() as MediaType;
  if (!(MEDIA_TYPES as readonly string[]).includes(format)) return null;
  const media = (parameter as Record<string, unknown>)[format] as { media_id?: unknown } | undefined;
  return typeof media?.media_id === 'string' ? { mediaId: media.media_id, mediaType: format } : null;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
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

/** What automation sends: a text, an approved template (its header media by link), or an interactive message. */
export type AutomaticSend =
  | { type: 'text'; text: string }
  | { type: 'template'; template: TemplateToSend }
  | { type: 'interactive'; interactive: Record<string, unknown> };

/** The stored shape of what automation sends, as payloadOf stores the same message sent by an agent. */
function automaticPayloadOf(send: AutomaticSend): Pick<MessageRow, 'type' | 'text' | 'content'> {
  if (send.type === 'text') return { type: 'text', text: send.text, content: null };
  if (send.type === 'interactive')
    return { type: 'interactive', text: interactiveBodyText(send.interactive as never), content: send.interactive };
  const { name, language, components } = send.template;
  return { type: 'template', text: null, content: { name, language, ...(components ? { components } : {}) } };
}

/** Why a template automation would send cannot be saved: its header media must be a link (an upload is deleted unless a message sends it soon). */
export function automaticTemplateProblem(template: TemplateToSend): string | null {
  return templateHeaderUpload(template.components) ? "a template's header media must be a link, not media_id" : null;
}
