import {
  ForbiddenException,
  HttpException,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { toPublicId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { ContactsService } from '../contacts/contacts.service';
import { ConversationResponse } from '../conversations/conversation.dto';
import { ConversationsService } from '../conversations/conversations.service';
import { MessagesService } from '../conversations/messages.service';
import { EventsService } from '../events/events.service';
import { NotificationsService } from '../notifications/notifications.service';
import { parseChannelWebhook } from './channel-payload';

/**
 * The channel webhook: the verification handshake, the signature check, and ingestion. A 200
 * promises that every message of the body is committed, so one body is one transaction.
 */
@Injectable()
export class InboundService implements OnApplicationBootstrap {
  private readonly logger = new Logger(InboundService.name);

  constructor(
    private readonly database: Database,
    private readonly config: AppConfig,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.messagingAppSecret) {
      this.logger.warn('MESSAGING_APP_SECRET is not set: inbound channel webhooks are accepted without checking X-Hub-Signature-256');
    }
  }

  /** The channel's GET handshake: echo the challenge when the verify token matches. */
  verifySubscription(mode: string | undefined, token: string | undefined, challenge: string | undefined): string {
    const expected = this.config.messagingWebhookVerifyToken;
    if (mode !== 'subscribe' || !expected || !token || !challenge || !sameSecret(token, expected)) {
      throw new ForbiddenException('The verify token does not match MESSAGING_WEBHOOK_VERIFY_TOKEN');
    }
    return challenge;
  }

  /** X-Hub-Signature-256 is `sha256=<hex HMAC of the raw body keyed with the app secret>`. */
  verifySignature(rawBody: Buffer | undefined, signature: string | undefined): void {
    const secret = this.config.messagingAppSecret;
    if (!secret) return;
    const expected = `sha256=${createHmac('sha256', secret)
      .update(rawBody ?? Buffer.alloc(0))
      .digest('hex')}`;
    if (!signature || !sameSecret(signature, expected))
      throw new UnauthorizedException('X-Hub-Signature-256 is missing or does not match the body');
  }

  async ingest(body: unknown): Promise<{ messages: number; statuses: number }> {
    const { messages, statuses, ignored } = parseChannelWebhook(body);
    for (const line of ignored) this.logger.warn(`Channel webhook: acknowledged without storing ${line}`);
    let stored = 0;
    try {
      await this.database.transaction(async (db) => {
        for (const { phone, profileName, message } of messages) {
          // A redelivery must not reopen a conversation an agent closed since.
          if (await this.messages.isKnown(db, message.channelMessageId)) continue;
          const { contact } = await this.contacts.findOrCreateByPhone(db, phone, profileName);
          const conversation = await this.conversations.openForContact(db, contact.id, new Date());
          const saved = await this.messages.recordInbound(db, conversation, message);
          if (!saved) continue;
          stored += 1;
          const row = ConversationResponse.of(await this.conversations.findWithCustomer(db, conversation.id));
          await this.events.record(db, 'message.received', {
            message: {
              id: toPublicId('msg', saved.id),
              text: saved.text,
              from: phone,
              type: saved.type,
              created_at: saved.created_at.toISOString(),
            },
            conversation: row,
          });
          if (conversation.assigned_to) {
            await this.notifications.notify(db, {
              userId: conversation.assigned_to,
              type: 'message.received',
              conversationId: conversation.id,
              text: `New message from ${row.customer.name}`,
            });
          }
        }
        for (const status of statuses) await this.messages.applyChannelStatus(db, status);
      });
    } catch (error) {
      if (error instanceof HttpException) throw error;
      this.logger.error(`Channel webhook could not be stored: ${(error as Error).message}`);
      throw new ServiceUnavailableException('The webhook could not be stored; retry later');
    }
    return { messages: stored, statuses: statuses.length };
  }
}

/** Compares secrets in constant time (lengths may differ: that is a mismatch, not an error). */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
