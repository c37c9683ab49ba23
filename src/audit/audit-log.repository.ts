import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, sql, Sql } from '../database/sql';
import type { AuditAction, AuditEntryRow } from './audit-entry.entity';

const NEWEST_FIRST = new Keyset<AuditEntryRow>({ time: 'at', id: 'id' }, 'DESC', (row) => [row.at, row.id]);

export interface AuditFilter {
  actorId?: string;
  action?: AuditAction;
  from?: Date;
  to?: Date;
}

/** The SQL of `audit_log`: insert, read and prune only; nothing updates a row. */
@Injectable()
export class AuditLogRepository {
  async insert(db: Db, entry: AuditEntryRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO audit_log (id, at, actor_id, actor, ip, action, target, details)
          VALUES (${entry.id}, ${entry.at}, ${entry.actor_id}, ${entry.actor}, ${entry.ip}, ${entry.action}, ${entry.target},
                  ${JSON.stringify(entry.details)}::jsonb)`,
    );
  }

  /** Newest first, on audit_log_at_idx (or the actor's or action's index when filtered by it). */
  async list(db: Db, filter: AuditFilter, page: PageQuery): Promise<Page<AuditEntryRow>> {
    const conditions: Sql[] = [];
    if (filter.actorId !== undefined) conditions.push(sql`actor_id = ${filter.actorId}`);
    if (filter.action !== undefined) conditions.push(sql`action = ${filter.action}`);
    if (filter.from !== undefined) conditions.push(sql`at >= ${filter.from}`);
    if (filter.to !== undefined) conditions.push(sql`at < ${filter.to}`);
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) conditions.push(after);
    const rows = await query<AuditEntryRow>(
      db,
      sql`SELECT id, at, actor_id, actor, ip, action, target, details FROM audit_log ${sql.where(conditions)} ${NEWEST_FIRST.orderAndLimit(page)}`,
    );
    return NEWEST_FIRST.page(rows, page);
  }

  /** Deletes up to `limit` entries older than `before`; answers how many. */
  prune(db: Db, before: Date, limit: number): Promise<number> {
    return execute(
      db,
      sql`DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`,
    );
  }
}
