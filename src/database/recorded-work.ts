import type { WorkItem } from '../queue/job-queue';
import { Db, query, Sql, sql } from './sql';

/** `now()` plus `ms` milliseconds, as a SQL expression. */
export function msFromNow(ms: number): Sql {
  return sql`now() + ${ms} * interval '1 millisecond'`;
}

/**
 * The relay's hand-off for a table of recorded work (rows with `attempts` and `next_attempt_at`):
 * claims up to `limit` rows that are `waiting` and due, pushes their due time past `leaseMs` so no
 * other relay hands them on meanwhile (others' locked rows are skipped), and answers the attempts
 * to start. Each repository calls it for its own table.
 */
export async function claimDueWork(
  db: Db,
  table: 'messages' | 'webhook_deliveries',
  waiting: Sql,
  limit: number,
  leaseMs: number,
): Promise<WorkItem[]> {
  const name = sql.raw(table);
  const rows = await query<{ id: string; attempts: number }>(
    db,
    sql`UPDATE ${name} SET next_attempt_at = ${msFromNow(leaseMs)}
         WHERE id IN (SELECT id FROM ${name} WHERE ${waiting} AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id, attempts`,
  );
  return rows.map((row) => ({ id: row.id, attempt: row.attempts + 1 }));
}
