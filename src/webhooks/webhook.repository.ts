import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { WebhookRow } from './webhook.entity';

const COLUMNS = sql.raw('id, url, events, secret, active, disabled_reason, created_at, updated_at');
const NEWEST_FIRST = new Keyset<WebhookRow>({ time: 'created_at', id: 'id' }, 'DESC', (row) => [row.created_at, row.id]);

/** The SQL of the `webhooks` table (registrations). */
@Injectable()
export class WebhookRepository {
  async insert(db: Db, webhook: WebhookRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO webhooks (id, url, events, secret, active, disabled_reason, created_at, updated_at)
          VALUES (${webhook.id}, ${webhook.url}, ${webhook.events}, ${webhook.secret}, ${webhook.active}, ${webhook.disabled_reason}, ${webhook.created_at}, ${webhook.updated_at})`,
    );
  }

  /** Newest first, on webhooks_created_at_id_idx. */
  async list(db: Db, page: PageQuery): Promise<Page<WebhookRow>> {
    const after = NEWEST_FIRST.after(page.cursor);
    const rows = await query<WebhookRow>(
      db,
      sql`SELECT ${COLUMNS} FROM webhooks ${sql.where(after ? [after] : [])} ${NEWEST_FIRST.orderAndLimit(page)}`,
    );
    return NEWEST_FIRST.page(rows, page);
  }

  find(db: Db, id: string): Promise<WebhookRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM webhooks WHERE id = ${id}`);
  }

  /** The registrations that receive deliveries now. */
  active(db: Db): Promise<Pick<WebhookRow, 'id' | 'events'>[]> {
    return query(db, sql`SELECT id, events FROM webhooks WHERE active`);
  }

  /** Writes the registration's fields; the stored secret only when `secret` is given (already encrypted). */
  async update(db: Db, webhook: Omit<WebhookRow, 'secret'>, secret: string | null): Promise<void> {
    await execute(
      db,
      sql`UPDATE webhooks SET url = ${webhook.url}, events = ${webhook.events}, secret = COALESCE(${secret}::text, secret), active = ${webhook.active},
                 disabled_reason = ${webhook.disabled_reason}, updated_at = ${webhook.updated_at}
           WHERE id = ${webhook.id}`,
    );
  }

  /**
   * Up to `limit` registrations after `afterId` (in id order) whose stored secret does not start
   * with `currentPrefix`, locked for the caller's transaction; rows another replica holds are
   * skipped (it is rewriting them).
   */
  secretsToReseal(db: Db, currentPrefix: string, afterId: string | null, limit: number): Promise<Pick<WebhookRow, 'id' | 'secret'>[]> {
    return query(
      db,
      sql`SELECT id, secret FROM webhooks
           WHERE NOT starts_with(secret, ${currentPrefix}) ${afterId ? sql`AND id > ${afterId}` : sql.raw('')}
           ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  async setSecret(db: Db, id: string, secret: string): Promise<void> {
    await execute(db, sql`UPDATE webhooks SET secret = ${secret} WHERE id = ${id}`);
  }

  async disable(db: Db, id: string, reason: string): Promise<void> {
    await execute(db, sql`UPDATE webhooks SET active = false, disabled_reason = ${reason}, updated_at = now() WHERE id = ${id}`);
  }

  /** Deletes the registration and, by cascade, its deliveries; answers whether it existed. */
  async delete(db: Db, id: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM webhooks WHERE id = ${id}`)) > 0;
  }
}
