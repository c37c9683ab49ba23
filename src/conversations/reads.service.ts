import { Injectable } from '@nestjs/common';
import { newUuid } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { UserFrames } from '../events/user-frames';
import type { UserRow } from '../users/user.entity';
import { ConversationResponse } from './conversation.dto';
import { ConversationsService } from './conversations.service';
import { MessageRepository } from './message.repository';
import { ReadRepository } from './read.repository';

/**
 * Who has read what: each user's read marker per conversation (the newest message they have
 * seen, the ground of unread counts), and the read receipts that tell the customer's phone its
 * messages were read: one per message however many agents read it on however many replicas,
 * sent after the commit as recorded work (`read_receipts`), unless MESSAGING_READ_RECEIPTS=false.
 */
@Injectable()
export class ReadsService {
  constructor(
    private readonly database: Database,
    private readonly config: AppConfig,
    private readonly messages: MessageRepository,
    private readonly reads: ReadRepository,
    private readonly conversations: ConversationsService,
    private readonly userFrames: UserFrames,
  ) {}

  /**
   * The caller has read the conversation: their marker moves to its newest message (never back),
   * and the channel is to be told that the newest customer message was read, once; the caller's
   * streams send their counts again. Answers the conversation.
   */
  async markRead(conversationId: string, caller: UserRow): Promise<ConversationResponse> {
    let moved = false;
    const read = await this.database.transaction(async (db) => {
      // Held first: the marker's trigger reads the conversation FOR SHARE too, and taking it before
      // the marker row keeps the lock order of a merge that deletes the conversation (row, then markers).
      await this.conversations.holdForReading(db, conversationId);
      const now = new Date();
      const newest = await this.messages.newest(db, conversationId);
      if (newest) {
        moved = await this.reads.advanceMarker(db, {
          conversationId,
          userId: caller.id,
          newestMessageId: newest.id,
          newestCreatedAt: newest.created_at,
          at: now,
        });
      }
      if (this.config.messagingReadReceipts) {
        // The channel marks the earlier messages read with the newest one: one receipt covers them all.
        const newestInbound = newest?.direction === 'inbound' ? newest : await this.messages.newest(db, conversationId, 'inbound');
        if (newestInbound?.channel_message_id) {
          await this.reads.insertReceipt(db, {
            id: newUuid(now.getTime()),
            messageId: newestInbound.id,
            channelMessageId: newestInbound.channel_message_id,
            at: now,
          });
        }
      }
      return ConversationResponse.of(await this.conversations.findWithCustomer(db, conversationId, caller.id));
    });
    // A read records no event, and it may lower the caller's unread count: their streams send it again.
    if (moved) await this.userFrames.changedFor(caller.id);
    return read;
  }

  async markReceiptSent(id: string): Promise<void> {
    await this.reads.finish(this.database.db, id, { status: 'sent', error: null });
  }

  async markReceiptFailed(id: string, error: string): Promise<void> {
    await this.reads.finish(this.database.db, id, { status: 'failed', error });
  }
}
