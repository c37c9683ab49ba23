import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { EmailNotifications } from '../users/user.entity';
import type { NotificationRow } from './notification.entity';

const COLUMNS = sql.raw('n.id, n.user_id, n.type, n.conversation_id, n.text, n.created_at, n.read_at, n.email_due_at');
const NEWEST_FIRST = new Keyset<NotificationRow>({ time: 'n.created_at', id: 'n.id' }, 'DESC', (row) => [row.created_at, row.id]);

/** A notification due to be e-mailed, with what the e-mail needs of its user. */
export interface DueNotificationRow extends NotificationRow {
  user_email: string;
  user_name: string;
  user_email_notifications: EmailNotifications;
}

/** The SQL of the `notifications` and `notification_digests` tables. */
@Injectable()
export class NotificationRepository {
  async insert(db: Db, notification: NotificationRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO notifications (id, user_id, type, conversation_id, text, created_at, read_at, email_due_at)
          VALUES (${notification.id}, ${notification.user_id}, ${notification.type}, ${notification.conversation_id}, ${notification.text},
                  ${notification.created_at}, ${notification.read_at}, ${notification.email_due_at})`,
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

  /** The user's unread notifications, counted on the partial notifications_user_unread_idx. Public for its EXPLAIN test. */
  unreadCountStatement(userId: string): Sql {
    return sql`SELECT count(*)::int AS unread FROM notifications n WHERE n.user_id = ${userId} AND n.read_at IS NULL`;
  }

  async unreadCount(db: Db, userId: string): Promise<number> {
    return (await queryOne<{ unread: number }>(db, this.unreadCountStatement(userId)))!.unread;
  }

  find(db: Db, userId: string, id: string): Promise<NotificationRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM notifications n WHERE n.id = ${id} AND n.user_id = ${userId}`);
  }

  /** Marks one (`id`) or all of the user's unread notifications read now (a read one is not e-mailed); those already read keep their time. */
  async markRead(db: Db, userId: string, id?: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE notifications SET read_at = now(), email_due_at = NULL
           WHERE user_id = ${userId} AND read_at IS NULL ${id === undefined ? sql.raw('') : sql`AND id = ${id}`}`,
    );
  }

  async deleteAll(db: Db, userId: string): Promise<void> {
    await execute(db, sql`DELETE FROM notifications WHERE user_id = ${userId}`);
  }

  /** Deletes the user's notifications about conversations of inboxes they no longer see (an agent's, of an inbox they are not a member of). */
  async deleteOutOfSight(db: Db, userId: string): Promise<void> {
    await execute(
      db,
      sql`DELETE FROM notifications n USING conversations c, users u
           WHERE n.user_id = ${userId} AND c.id = n.conversation_id AND u.id = n.user_id AND u.role <> 'admin'
             AND NOT EXISTS (SELECT 1 FROM inbox_members m WHERE m.user_id = n.user_id AND m.inbox_id = c.inbox_id)`,
    );
  }

  /** Points the notifications about one conversation at another (two customers' conversations merged). */
  async moveToConversation(db: Db, fromConversationId: string, intoConversationId: string): Promise<void> {
    await execute(db, sql`UPDATE notifications SET conversation_id = ${intoConversationId} WHERE conversation_id = ${fromConversationId}`);
  }

  /**
   * Up to `limit` notifications due to be e-mailed one by one (their users not on `digest`), the
   * oldest due first on notifications_email_due_idx, locked for the caller's transaction; rows
   * another replica holds are skipped, so replicas share them and none is e-mailed twice.
   */
  claimDueSingly(db: Db, limit: number): Promise<DueNotificationRow[]> {
    return query(
      db,
      sql`SELECT ${COLUMNS}, u.email AS user_email, u.name AS user_name,
                 CASE WHEN u.status = 'active' THEN u.email_notifications ELSE 'off' END AS user_email_notifications
            FROM notifications n JOIN users u ON u.id = n.user_id
           WHERE n.email_due_at <= now() AND NOT (u.email_notifications = 'digest' AND u.status = 'active')
           ORDER BY n.email_due_at
           LIMIT ${limit}
             FOR UPDATE OF n SKIP LOCKED`,
    );
  }

  /** Users on `digest` with notifications due and no digest sent within `intervalMs`: whose digest is due. */
  async usersWithDigestDue(db: Db, intervalMs: number, limit: number): Promise<string[]> {
    const rows = await query<{ user_id: string }>(
      db,
      sql`SELECT DISTINCT n.user_id
            FROM notifications n JOIN users u ON u.id = n.user_id
           WHERE n.email_due_at <= now() AND u.email_notifications = 'digest' AND u.status = 'active'
             AND NOT EXISTS (SELECT 1 FROM notification_digests d WHERE d.user_id = n.user_id AND d.sent_at > now() - ${intervalMs} * interval '1 millisecond')
           LIMIT ${limit}`,
    );
    return rows.map((row) => row.user_id);
  }

  /** One user's notifications due in a digest, oldest first, locked for the caller's transaction (skipping what another replica holds). */
  claimDueForDigest(db: Db, userId: string): Promise<DueNotificationRow[]> {
    return query(
      db,
      sql`SELECT ${COLUMNS}, u.email AS user_email, u.name AS user_name, u.email_notifications AS user_email_notifications
            FROM notifications n JOIN users u ON u.id = n.user_id
           WHERE n.user_id = ${userId} AND n.email_due_at <= now() AND u.email_notifications = 'digest' AND u.status = 'active'
           ORDER BY n.created_at, n.id
             FOR UPDATE OF n SKIP LOCKED`,
    );
  }

  /**
   * Takes the user's digest for now, unless one was sent within `intervalMs`: of two replicas, the
   * second waits for the first's transaction and then finds the digest sent. Answers whether it is
   * this caller's to send.
   */
  async claimDigest(db: Db, userId: string, intervalMs: number): Promise<boolean> {
    const rows = await query(
      db,
      sql`INSERT INTO notification_digests (user_id, sent_at) VALUES (${userId}, now())
          ON CONFLICT (user_id) DO UPDATE SET sent_at = excluded.sent_at
           WHERE notification_digests.sent_at <= now() - ${intervalMs} * interval '1 millisecond'
          RETURNING user_id`,
    );
    return rows.length > 0;
  }

  /** These notifications are e-mailed or passed over: never again. */
  async clearEmailDue(db: Db, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await execute(db, sql`UPDATE notifications SET email_due_at = NULL WHERE id = ANY(${ids}::uuid[])`);
  }
}
