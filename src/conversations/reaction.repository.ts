import { Injectable } from '@nestjs/common';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { WorkKind } from '../recorded-work/work-kind';
import type { ReactionRow } from './reaction.entity';

const COLUMNS = sql.raw('message_id, reactor, emoji, channel_message_id, channel_timestamp, created_at');
/** Agents' reactions not sent yet, as recorded work (alias `w`), and what a send needs, taken with its claim. */
export const REACTION_SEND_WORK = {
  table: 'reaction_sends',
  waiting: sql`w.status = 'queued'`,
  needs: {
    from: sql`messages m, conversations c, contacts ct`,
    where: sql`m.id = w.message_id AND c.id = m.conversation_id AND ct.id = c.contact_id`,
    columns: sql`w.emoji, m.channel_message_id AS target_channel_message_id, ct.phone AS customer_phone, ct.wa_user_id AS customer_wa_user_id, c.inbox_id`,
  },
} satisfies Pick<WorkKind, 'table' | 'waiting' | 'needs'>;

/** The SQL of `message_reactions` (who reacted with what) and `reaction_sends` (agents' reactions on their way to the channel). */
@Injectable()
export class ReactionRepository {
  /**
   * The reactions (removed ones left out) of these messages, oldest first, on the primary key. A
   * statement each connection keeps (RunOptions.keepPlan): every page of a thread and of a search
   * reads them, and parsing and planning the statement cost PostgreSQL twelve times running it
   * (statement log, a search's page of 26: parse 0.062 ms, bind 0.083 ms, execute 0.012 ms). Its
   * plan without the ids reads the key, the best plan for any page's ids.
   */
  async forMessages(db: Db, messageIds: string[]): Promise<ReactionRow[]> {
    if (messageIds.length === 0) return [];
    return query<ReactionRow>(db, this.forMessagesStatement(messageIds), { keepPlan: true });
  }

  /** forMessages' statement (public for the test of its kept plan). */
  forMessagesStatement(messageIds: string[]): Sql {
    return sql`SELECT ${COLUMNS} FROM message_reactions WHERE message_id = ANY(${messageIds}::uuid[]) AND emoji <> '' ORDER BY created_at, reactor`;
  }

  /** One reactor's reaction to one message (a removed one too), locked until the caller's transaction ends. */
  lock(db: Db, messageId: string, reactor: string): Promise<ReactionRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM message_reactions WHERE message_id = ${messageId} AND reactor = ${reactor} FOR UPDATE`);
  }

  /** Sets one reactor's reaction (an empty emoji: removed). */
  async upsert(db: Db, reaction: ReactionRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO message_reactions (${COLUMNS})
          VALUES (${reaction.message_id}, ${reaction.reactor}, ${reaction.emoji}, ${reaction.channel_message_id}, ${reaction.channel_timestamp},
                  ${reaction.created_at})
          ON CONFLICT (message_id, reactor) DO UPDATE
            SET emoji = EXCLUDED.emoji, channel_message_id = EXCLUDED.channel_message_id, channel_timestamp = EXCLUDED.channel_timestamp,
                created_at = EXCLUDED.created_at`,
    );
  }

  /**
   * Queues the send of an agent's reaction, due now. An earlier one of the same agent to the same
   * message that has not gone yet is superseded: only the newest reaction is worth sending.
   */
  async queueSend(db: Db, send: { id: string; messageId: string; userId: string; emoji: string; at: Date }): Promise<void> {
    await execute(
      db,
      sql`UPDATE reaction_sends SET status = 'superseded', next_attempt_at = NULL, updated_at = ${send.at}
           WHERE message_id = ${send.messageId} AND user_id = ${send.userId} AND status = 'queued' AND claimed_by IS NULL`,
    );
    await execute(
      db,
      sql`INSERT INTO reaction_sends (id, message_id, user_id, emoji, status, attempts, next_attempt_at, created_at, updated_at)
          VALUES (${send.id}, ${send.messageId}, ${send.userId}, ${send.emoji}, 'queued', 0, ${send.at}, ${send.at}, ${send.at})`,
    );
  }

  async finishSend(
    db: Db,
    id: string,
    change: { status: 'sent' | 'failed'; channelMessageId: string | null; error: string | null },
  ): Promise<void> {
    await execute(
      db,
      sql`UPDATE reaction_sends SET status = ${change.status}, channel_message_id = ${change.channelMessageId}, error = ${change.error},
                 next_attempt_at = NULL, claimed_by = NULL, updated_at = now()
           WHERE id = ${id} AND status = 'queued'`,
    );
  }
}
