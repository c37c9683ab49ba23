import type { WorkItem } from '../queue/job-queue';
import { Db, execute, query, Sql, sql } from './sql';

/** The tables of recorded work. */
export type RecordedWorkTable =
  'messages' | 'webhook_deliveries' | 'reaction_sends' | 'read_receipts' | 'template_syncs' | 'outbound_emails' | 'media';

/*
 * Tables of recorded work have `attempts`, `next_attempt_at` and `claimed_by`; `waiting` is the
 * condition, on the table aliased `w`, of a row whose work is not finished (a status).
 */

/**
 * Makes the work that a dead instance had claimed (its `claimed_by` no longer in `instances`) due
 * now, so that another attempt starts within seconds of the death, not after the attempt's lease.
 * Answers how many rows it released.
 */
export async function releaseAbandonedWork(db: Db, table: RecordedWorkTable, waiting: Sql): Promise<number> {
  const name = sql.raw(table);
  return execute(
    db,
    sql`UPDATE ${name} w SET next_attempt_at = now(), claimed_by = NULL
         WHERE ${waiting} AND w.claimed_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = w.claimed_by)`,
  );
}

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
export async function claimDueWork(db: Db, table: RecordedWorkTable, waiting: Sql, limit: number, leaseMs: number): Promise<WorkItem[]> {
  const name = sql.raw(table);
  const rows = await query<{ id: string; attempts: number }>(
    db,
    sql`UPDATE ${name} SET next_attempt_at = ${msFromNow(leaseMs)}
         WHERE id IN (SELECT w.id FROM ${name} w WHERE ${waiting} AND w.next_attempt_at <= now() ORDER BY w.next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id, attempts`,
  );
  return rows.map((row) => ({ id: row.id, attempt: row.attempts + 1 }));
}
