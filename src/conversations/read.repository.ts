import { Injectable } from '@nestjs/common';
import { Db, execute, query, sql } from '../database/sql';
import type { WorkKind } from '../recorded-work/work-kind';

/** Read receipts not sent yet, as recorded work (alias `w`), and what telling the channel needs. */
export const READ_RECEIPT_WORK = {
  table: 'read_receipts',
  waiting: sql`w.status = 'pending'`,
  needs: {
    from: sql`messages m, conversations c`,
    where: sql`m.id = w.message_id AND c.id = m.conversation_id`,
    columns: sql`w.channel_message_id, c.inbox_id`,
  },
} satisfies Pick<WorkKind, 'table' | 'waiting' | 'needs'>;

/** The SQL of `conversation_reads` (each user's read marker) and `read_receipts` (what the channel is told was read). */
@Injectable()
export class ReadRepository {
  /**
   * Moves the user's read marker of the conversation to its newest message, never back: a marker
   * already at or after it (in the thread's order, created_at then id) stays. The marker also keeps
   * how many of the customer's messages the thread held then (the list's unread count subtracts
   * it), read from the conversation, which the caller holds so no message arrives meanwhile.
   * Answers whether the marker changed.
   */
  async advanceMarker(
    db: Db,
    marker: { conversationId: string; userId: string; newestMessageId: string; newestCreatedAt: Date; at: Date },
  ): Promise<boolean> {
    const advances = sql`(conversation_reads.last_read_at, conversation_reads.last_read_message_id) < (EXCLUDED.last_read_at, EXCLUDED.last_read_message_id)`;
    const written = await execute(
      db,
      sql`INSERT INTO conversation_reads (conversation_id, user_id, last_read_message_id, last_read_at, updated_at, inbound_read)
          SELECT ${marker.conversationId}, ${marker.userId}, ${marker.newestMessageId}, ${marker.newestCreatedAt}, ${marker.at}, c.inbound_count
            FROM conversations c WHERE c.id = ${marker.conversationId}
          ON CONFLICT (conversation_id, user_id) DO UPDATE
            SET last_read_message_id = CASE WHEN ${advances} THEN EXCLUDED.last_read_message_id ELSE conversation_reads.last_read_message_id END,
                last_read_at = CASE WHEN ${advances} THEN EXCLUDED.last_read_at ELSE conversation_reads.last_read_at END,
                updated_at = EXCLUDED.updated_at,
                inbound_read = GREATEST(conversation_reads.inbound_read, EXCLUDED.inbound_read)
          WHERE ${advances} OR conversation_reads.inbound_read < EXCLUDED.inbound_read`,
    );
    return written > 0;
  }

  /** Records that the channel is to be told this message was read, due now; answers false when it was recorded before (by anyone). */
  async insertReceipt(db: Db, receipt: { id: string; messageId: string; channelMessageId: string; at: Date }): Promise<boolean> {
    const inserted = await query(
      db,
      sql`INSERT INTO read_receipts (id, message_id, channel_message_id, status, attempts, next_attempt_at, created_at, updated_at)
          VALUES (${receipt.id}, ${receipt.messageId}, ${receipt.channelMessageId}, 'pending', 0, ${receipt.at}, ${receipt.at}, ${receipt.at})
          ON CONFLICT (message_id) DO NOTHING RETURNING id`,
    );
    return inserted.length > 0;
  }

  async finish(db: Db, id: string, change: { status: 'sent' | 'failed'; error: string | null }): Promise<void> {
    await execute(
      db,
      sql`UPDATE read_receipts SET status = ${change.status}, error = ${change.error}, next_attempt_at = NULL, claimed_by = NULL, updated_at = now()
           WHERE id = ${id} AND status = 'pending'`,
    );
  }
}
