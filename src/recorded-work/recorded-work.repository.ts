import { Injectable } from '@nestjs/common';
import { Db, execute, query, sql, Sql } from '../database/sql';
import type { DueWork } from '../events/outbox-relay';
import type { WorkItem } from '../queue/job-queue';
import type { ClaimedWork, WorkKind } from './work-kind';

/** What the rows' protocol needs of a kind. */
type RowsOfKind = Pick<WorkKind, 'table' | 'idType' | 'waiting' | 'needs' | 'leaseMs' | 'errorColumn'>;

/** `now()` plus `ms` milliseconds, as a SQL expression. */
function msFromNow(ms: number): Sql {
  return sql`now() + ${ms} * interval '1 millisecond'`;
}

/** The protocol of recorded work, once for every table of it (each kind names its table and its waiting rows). */
@Injectable()
export class RecordedWorkRepository {
  /**
   * The relay's hand-off: claims up to `limit` rows that are waiting and due, pushes their due
   * time past `leaseMs` so no other relay hands them on meanwhile (others' locked rows are
   * skipped), and answers the attempts to start, with how long until the earliest of the other
   * waiting rows is due by the database's clock (0 when one is due already, left behind by the
   * limit or a lock; null when none waits), so the relay need not look again before then. One
   * round trip.
   */
  async claimDue(db: Db, kind: RowsOfKind, limit: number, leaseMs: number): Promise<DueWork> {
    const table = sql.raw(kind.table);
    const rows = await query<{ id: string | null; attempts: number | null; next_due_in_ms: number | null }>(
      db,
      sql`WITH claimed AS (
            UPDATE ${table} SET next_attempt_at = ${msFromNow(leaseMs)}
             WHERE id IN (SELECT w.id FROM ${table} w WHERE ${kind.waiting} AND w.next_attempt_at <= now()
                           ORDER BY w.next_attempt_at LIMIT ${limit} FOR NO KEY UPDATE SKIP LOCKED)
            RETURNING id, attempts)
          SELECT id, attempts, NULL::float8 AS next_due_in_ms FROM claimed
          UNION ALL
          SELECT NULL, NULL,
                 (EXTRACT(EPOCH FROM (SELECT w.next_attempt_at FROM ${table} w
                                       WHERE ${kind.waiting} AND w.next_attempt_at IS NOT NULL
                                         AND w.id NOT IN (SELECT id FROM claimed)
                                       ORDER BY w.next_attempt_at LIMIT 1) - now()) * 1000)::float8`,
    );
    const items: WorkItem[] = [];
    let nextDueInMs: number | null = null;
    for (const row of rows) {
      if (row.id === null) nextDueInMs = row.next_due_in_ms === null ? null : Math.max(0, row.next_due_in_ms);
      else items.push({ id: row.id, attempt: row.attempts! + 1 });
    }
    return { items, nextDueInMs };
  }

  /**
   * Makes the work that a dead instance had claimed (its `claimed_by` no longer in `instances`)
   * due now, so that another attempt starts within seconds of the death, not after the attempt's
   * lease. Answers how many rows it released.
   */
  releaseAbandoned(db: Db, kind: RowsOfKind): Promise<number> {
    return execute(
      db,
      sql`UPDATE ${sql.raw(kind.table)} w SET next_attempt_at = now(), claimed_by = NULL
           WHERE ${kind.waiting} AND w.claimed_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = w.claimed_by)`,
    );
  }

  /**
   * Takes waiting rows for the attempts named, skipping any that another worker took (its attempt
   * counted already) or that another statement holds at this moment (locked: skipped rather than
   * waited for, so batches never deadlock; such a row is still due when the relay's hand-off
   * lease ends, and is handed on again). Counts each attempt, records this instance and pushes the
   * due time past the attempt's lease, so a crash mid-attempt leaves it due again. One round trip
   * for the batch: the claims and what the attempts need together. Rows come in no particular
   * order; a row's `attempts` is the attempt it was claimed for. The rows are locked FOR NO KEY
   * UPDATE, not FOR UPDATE: a foreign-key check on a row (KEY SHARE, taken by every insert that
   * refers to it: a campaign's totals, a message's reaction) must not make a claim skip it.
   */
  claimAttempts<Claimed extends ClaimedWork>(db: Db, kind: RowsOfKind, work: WorkItem[], instanceId: string): Promise<Claimed[]> {
    if (work.length === 0) return Promise.resolve([]);
    const table = sql.raw(kind.table);
    const idType = sql.raw(kind.idType ?? 'uuid');
    const { from, where, columns } = kind.needs ?? {};
    return query<Claimed>(
      db,
      sql`UPDATE ${table} w SET attempts = w.attempts + 1, next_attempt_at = ${msFromNow(kind.leaseMs)}, claimed_by = ${instanceId}, updated_at = now()
            ${from ? sql`FROM ${from}` : sql.raw('')}
           WHERE w.id IN (SELECT w.id FROM ${table} w
                            JOIN unnest(${work.map((item) => item.id)}::${idType}[], ${work.map((item) => item.attempt - 1)}::int[]) AS c (id, attempts)
                              ON w.id = c.id AND w.attempts = c.attempts
                           WHERE ${kind.waiting}
                           FOR NO KEY UPDATE OF w SKIP LOCKED)
             ${where ? sql`AND ${where}` : sql.raw('')}
          RETURNING w.id, w.attempts${columns ? sql`, ${columns}` : sql.raw('')}`,
    );
  }

  /** The attempt failed and another follows at `at`: the row is released, due then, with the reason where the kind keeps one. */
  async scheduleRetry(db: Db, kind: RowsOfKind, id: string, at: Date, reason: string): Promise<void> {
    const error = kind.errorColumn ? sql`, ${sql.raw(kind.errorColumn)} = ${reason}` : sql.raw('');
    await execute(
      db,
      sql`UPDATE ${sql.raw(kind.table)} w SET next_attempt_at = ${at}, claimed_by = NULL, updated_at = now()${error}
           WHERE w.id = ${id} AND ${kind.waiting}`,
    );
  }
}
