import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { NotificationRow } from './notification.entity';

const COLUMNS = sql.raw('n.id, n.user_id, n.type, n.conversation_id, n.text, n.created_at, n.read_at');
const NEWEST_FIRST = new Keyset<NotificationRow>({ time: 'n.created_at', id: 'n.id' }, 'DESC', (row) => [row.created_at, row.id]);

/** The SQL of the `notifications` table. */
@Injectable()
export class NotificationRepository {
  async insert(db: Db, notification: NotificationRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO notifications (id, user_id, type, conversation_id, text, created_at, read_at)
          VALUES (${notification.id}, ${notification.user_id}, ${notification.type}, ${notification.conversation_id}, ${notification.text},
                  ${notification.created_at}, ${notification.read_at})`,
    );
  }

  /**
   * The one statement behind the list, newest first with a (created_at, id) keyset. `user_id` leads
   * and the unread filter is spelled `read_at IS NULL`, so notifications_user_created_idx or, for
   * unread only, the partial notifications_user_unread_idx serve it in order without a sort.
   * Public so the tests can EXPLAIN exactly what the list runs.
   */
  listStatement(userId: string, unreadOnly: boolean, page: PageQuery): Sql {
    const where = [sql`n.user_id = ${userId}`];
    if (unreadOnly) where.push(sql`n.read_at IS NULL`);
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    return sql`SELECT ${COLUMNS} FROM notifications n ${sql.where(where)} ${NEWEST_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, userId: string, unreadOnly: boolean, page: PageQuery): Promise<Page<NotificationRow>> {
    return NEWEST_FIRST.page(await query<NotificationRow>(db, this.listStatement(userId, unreadOnly, page)), page);
  }

  find(db: Db, userId: string, id: string): Promise<NotificationRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM notifications n WHERE n.id = ${id} AND n.user_id = ${userId}`);
  }

  /** Marks one (`id`) or all of the user's unread notifications read now; those already read keep their time. */
  async markRead(db: Db, userId: string, id?: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE notifications SET read_at = now() WHERE user_id = ${userId} AND read_at IS NULL ${id === undefined ? sql.raw('') : sql`AND id = ${id}`}`,
    );
  }

  async deleteAll(db: Db, userId: string): Promise<void> {
    await execute(db, sql`DELETE FROM notifications WHERE user_id = ${userId}`);
  }

  /** Points the notifications about one conversation at another (two customers' conversations merged). */
  async moveToConversation(db: Db, fromConversationId: string, intoConversationId: string): Promise<void> {
    await execute(db, sql`UPDATE notifications SET conversation_id = ${intoConversationId} WHERE conversation_id = ${fromConversationId}`);
  }
}
