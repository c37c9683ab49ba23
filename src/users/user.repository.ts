import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { Availability, UserRow } from './user.entity';

/** The user's own columns, their inboxes, and what the two-factor and lockout tables say of them (read here, written by their modules). */
const COLUMNS = sql.raw(
  `id, email, name, role, password_hash, beta_access, token_version, status, email_notifications, password_change_required,
   availability, availability_changed_at, last_present_at, created_at, updated_at,
   ARRAY(SELECT m.inbox_id FROM inbox_members m WHERE m.user_id = users.id ORDER BY m.inbox_id) AS inbox_ids,
   EXISTS (SELECT 1 FROM two_factor WHERE two_factor.user_id = users.id AND two_factor.enabled_at IS NOT NULL) AS two_factor_enabled,
   (SELECT locked_until FROM login_failures WHERE login_failures.user_id = users.id AND locked_until > now()) AS locked_until`,
);
const OLDEST_FIRST = new Keyset<UserRow>({ time: 'created_at', id: 'id' }, 'ASC', (row) => [row.created_at, row.id]);

/** The SQL of the `users` table. */
@Injectable()
export class UserRepository {
  async insert(db: Db, user: UserRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO users (id, email, name, role, password_hash, beta_access, token_version, status, email_notifications,
                             password_change_required, created_at, updated_at)
          VALUES (${user.id}, ${user.email}, ${user.name}, ${user.role}, ${user.password_hash}, ${user.beta_access}, ${user.token_version},
                  ${user.status}, ${user.email_notifications}, ${user.password_change_required}, ${user.created_at}, ${user.updated_at})`,
    );
  }

  async count(db: Db): Promise<number> {
    return (await queryOne<{ count: number }>(db, sql`SELECT count(*)::int AS count FROM users`))!.count;
  }

  /** Oldest first, on users_created_at_id_idx. */
  async list(db: Db, page: PageQuery): Promise<Page<UserRow>> {
    const after = OLDEST_FIRST.after(page.cursor);
    const rows = await query<UserRow>(
      db,
      sql`SELECT ${COLUMNS} FROM users ${sql.where(after ? [after] : [])} ${OLDEST_FIRST.orderAndLimit(page)}`,
    );
    return OLDEST_FIRST.page(rows, page);
  }

  /** `lock`: held until the caller's transaction ends. */
  find(db: Db, id: string, lock = false): Promise<UserRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM users WHERE id = ${id} ${sql.raw(lock ? 'FOR UPDATE' : '')}`);
  }

  findByEmail(db: Db, email: string): Promise<UserRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM users WHERE email = ${email}`);
  }

  async exists(db: Db, id: string): Promise<boolean> {
    return (await queryOne(db, sql`SELECT 1 FROM users WHERE id = ${id}`)) !== null;
  }

  async update(db: Db, user: UserRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE users SET email = ${user.email}, name = ${user.name}, role = ${user.role}, password_hash = ${user.password_hash},
                 beta_access = ${user.beta_access}, token_version = ${user.token_version}, status = ${user.status},
                 email_notifications = ${user.email_notifications}, password_change_required = ${user.password_change_required},
                 updated_at = ${user.updated_at}
           WHERE id = ${user.id}`,
    );
  }

  /** Replaces the hash if it is still `current` (a password change in between wins). */
  async updatePasswordHash(db: Db, id: string, current: string, replacement: string): Promise<void> {
    await execute(db, sql`UPDATE users SET password_hash = ${replacement} WHERE id = ${id} AND password_hash = ${current}`);
  }

  /**
   * The agent's availability, changed now unless it was this already; choosing `online` is being
   * present. The database's clock, as the conversations' assignment times are.
   */
  async setAvailability(db: Db, id: string, availability: Availability): Promise<void> {
    await execute(
      db,
      sql`UPDATE users SET availability = ${availability},
                 availability_changed_at = CASE WHEN availability = ${availability} THEN availability_changed_at ELSE now() END,
                 last_present_at = CASE WHEN ${availability} = 'online' THEN now() ELSE last_present_at END
           WHERE id = ${id}`,
    );
  }

  /** The router gave them a conversation at `at` (their turn in round_robin). */
  async markAssigned(db: Db, id: string, at: Date): Promise<void> {
    await execute(db, sql`UPDATE users SET last_assigned_at = ${at} WHERE id = ${id}`);
  }

  /**
   * The users `online` with no event stream open, whose last presence is `timeoutMs` old, become
   * `offline` as of that last presence; answers their ids.
   */
  async timeOutAbsent(db: Db, timeoutMs: number): Promise<string[]> {
    const rows = await query<{ id: string }>(
      db,
      sql`UPDATE users SET availability = 'offline', availability_changed_at = COALESCE(last_present_at, availability_changed_at)
           WHERE id IN (SELECT a.id FROM users a
                         WHERE a.availability = 'online'
                           AND COALESCE(a.last_present_at, a.availability_changed_at) <= now() - make_interval(secs => ${timeoutMs / 1000})
                           AND NOT EXISTS (SELECT 1 FROM event_streams s WHERE s.user_id = a.id)
                         ORDER BY a.id FOR UPDATE)
             AND availability = 'online'
       RETURNING id`,
    );
    return rows.map((row) => row.id);
  }

  async incrementTokenVersion(db: Db, id: string): Promise<void> {
    await execute(db, sql`UPDATE users SET token_version = token_version + 1 WHERE id = ${id}`);
  }

  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM users WHERE id = ${id}`);
  }

  /** The ids of every admin, locked so that two concurrent demotions cannot both see another admin. */
  async lockAdmins(db: Db): Promise<string[]> {
    return (await query<{ id: string }>(db, sql`SELECT id FROM users WHERE role = 'admin' FOR UPDATE`)).map((row) => row.id);
  }

  /** Replaces the inboxes the user belongs to. */
  async setInboxes(db: Db, userId: string, inboxIds: readonly string[]): Promise<void> {
    await execute(db, sql`DELETE FROM inbox_members WHERE user_id = ${userId} AND NOT (inbox_id = ANY(${inboxIds}::uuid[]))`);
    await execute(
      db,
      sql`INSERT INTO inbox_members (user_id, inbox_id) SELECT ${userId}, unnest(${inboxIds}::uuid[]) ON CONFLICT DO NOTHING`,
    );
  }

  /** The users of an inbox, oldest first. */
  async membersOf(db: Db, inboxId: string): Promise<string[]> {
    const rows = await query<{ user_id: string }>(
      db,
      sql`SELECT m.user_id FROM inbox_members m JOIN users u ON u.id = m.user_id WHERE m.inbox_id = ${inboxId} ORDER BY u.created_at, u.id`,
    );
    return rows.map((row) => row.user_id);
  }

  /** Replaces an inbox's users; answers who joined and who left. */
  async setMembersOf(db: Db, inboxId: string, userIds: readonly string[]): Promise<{ added: string[]; removed: string[] }> {
    const removed = await query<{ user_id: string }>(
      db,
      sql`DELETE FROM inbox_members WHERE inbox_id = ${inboxId} AND NOT (user_id = ANY(${userIds}::uuid[])) RETURNING user_id`,
    );
    const added = await query<{ user_id: string }>(
      db,
      sql`INSERT INTO inbox_members (user_id, inbox_id) SELECT unnest(${userIds}::uuid[]), ${inboxId} ON CONFLICT DO NOTHING RETURNING user_id`,
    );
    return { added: added.map((row) => row.user_id), removed: removed.map((row) => row.user_id) };
  }
}
