import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { claimDueWork, msFromNow, releaseAbandonedWork } from '../database/recorded-work';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { WorkItem } from '../queue/job-queue';
import type { MessageRow, MessageStatus, MessageToSend } from './message.entity';

const COLUMNS = sql.raw(
  'id, conversation_id, direction, type, text, content, status, error, channel_message_id, sent_by, idempotency_key, request_hash, channel_timestamp, media_id, attempts, next_attempt_at, created_at, updated_at',
);
/** A message whose sending is not finished, as recorded work (alias `w`). */
const SEND_WAITING = sql`w.status = 'queued'`;
const NEWEST_FIRST = new Keyset<MessageRow>({ time: 'created_at', id: 'id' }, 'DESC', (row) => [row.created_at, row.id]);

/** The SQL of the `messages` table. */
@Injectable()
export class MessageRepository {
  /** The thread, newest first, on messages_conversation_created_idx. */
  async list(db: Db, conversationId: string, page: PageQuery): Promise<Page<MessageRow>> {
    const where = [sql`conversation_id = ${conversationId}`];
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    return NEWEST_FIRST.page(
      await query<MessageRow>(db, sql`SELECT ${COLUMNS} FROM messages ${sql.where(where)} ${NEWEST_FIRST.orderAndLimit(page)}`),
      page,
    );
  }

  /**
   * Inserts a message; an inbound one the channel delivered before (same channel message id) is
   * not inserted again. Answers whether it was inserted.
   */
  async insert(db: Db, message: MessageRow): Promise<boolean> {
    const inserted = await query(
      db,
      sql`INSERT INTO messages (${COLUMNS})
          VALUES (${message.id}, ${message.conversation_id}, ${message.direction}, ${message.type}, ${message.text},
                  ${message.content === null ? null : JSON.stringify(message.content)}, ${message.status}, ${message.error}, ${message.channel_message_id},
                  ${message.sent_by}, ${message.idempotency_key}, ${message.request_hash}, ${message.channel_timestamp}, ${message.media_id}, ${message.attempts},
                  ${message.next_attempt_at}, ${message.created_at}, ${message.updated_at})
          ON CONFLICT (channel_message_id) WHERE channel_message_id IS NOT NULL DO NOTHING RETURNING id`,
    );
    return inserted.length > 0;
  }

  async existsWithChannelId(db: Db, channelMessageId: string): Promise<boolean> {
    return (await queryOne(db, sql`SELECT 1 FROM messages WHERE channel_message_id = ${channelMessageId}`)) !== null;
  }

  findByIdempotencyKey(db: Db, sentBy: string, idempotencyKey: string): Promise<MessageRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM messages WHERE sent_by = ${sentBy} AND idempotency_key = ${idempotencyKey}`);
  }

  /** Moves an outbound message to `status` if it is in one of `from`; answers the changed row. */
  moveStatus(
    db: Db,
    channelMessageId: string,
    from: MessageStatus[],
    change: { status: MessageStatus; error: string | null; at: Date },
  ): Promise<MessageRow | null> {
    return queryOne(
      db,
      sql`UPDATE messages SET status = ${change.status}, error = ${change.error}, updated_at = ${change.at}
           WHERE channel_message_id = ${channelMessageId} AND direction = 'outbound' AND status = ANY(${from})
          RETURNING ${COLUMNS}`,
    );
  }

  /** The relay's hand-off: queued messages whose attempt is due, their due time pushed past `leaseMs`, as the attempts to start. */
  claimDue(db: Db, limit: number, leaseMs: number): Promise<WorkItem[]> {
    return claimDueWork(db, 'messages', SEND_WAITING, limit, leaseMs);
  }

  /** Queued messages whose send attempt died with its instance: due again now. */
  releaseAbandoned(db: Db): Promise<number> {
    return releaseAbandonedWork(db, 'messages', SEND_WAITING);
  }

  /**
   * Takes a queued message for send attempt `attempt`, unless another worker took that attempt:
   * counts it, records the instance, and pushes the due time past the attempt's longest duration.
   * Answers what the send needs.
   */
  claimSend(db: Db, work: WorkItem, leaseMs: number, instanceId: string): Promise<MessageToSend | null> {
    return queryOne(
      db,
      sql`UPDATE messages m SET attempts = m.attempts + 1, next_attempt_at = ${msFromNow(leaseMs)}, claimed_by = ${instanceId}, updated_at = now()
            FROM conversations c, contacts ct
           WHERE m.id = ${work.id} AND m.status = 'queued' AND m.attempts = ${work.attempt - 1} AND c.id = m.conversation_id AND ct.id = c.contact_id
          RETURNING m.id, m.attempts, m.type, m.text, m.content, m.media_id, ct.phone AS customer_phone`,
    );
  }

  /** Ends a queued message's sending (sent or failed); answers the changed row, or null when it was no longer queued. */
  finishSend(
    db: Db,
    id: string,
    change: { status: MessageStatus; channel_message_id: string | null; error: string | null },
  ): Promise<MessageRow | null> {
    return queryOne(
      db,
      sql`UPDATE messages SET status = ${change.status}, channel_message_id = COALESCE(${change.channel_message_id}, channel_message_id), error = ${change.error},
                 next_attempt_at = NULL, claimed_by = NULL, updated_at = now()
           WHERE id = ${id} AND status = 'queued'
          RETURNING ${COLUMNS}`,
    );
  }

  /** The messages that carry a media (one, unless an upload was sent more than once). */
  findByMediaId(db: Db, mediaId: string): Promise<MessageRow[]> {
    return query(db, sql`SELECT ${COLUMNS} FROM messages WHERE media_id = ${mediaId}`);
  }

  async attachMedia(db: Db, id: string, mediaId: string): Promise<void> {
    await execute(db, sql`UPDATE messages SET media_id = ${mediaId} WHERE id = ${id}`);
  }

  async scheduleSendAttempt(db: Db, id: string, at: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE messages SET next_attempt_at = ${at}, claimed_by = NULL, updated_at = now() WHERE id = ${id} AND status = 'queued'`,
    );
  }
}
