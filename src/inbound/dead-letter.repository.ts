import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { DeadLetterRow } from './dead-letter.entity';

const COLUMNS = sql.raw(
  'd.id, d.received_at, d.raw_body, d.signature, d.error, d.unknown_phone_number_id, d.error_stack, d.replayed_at, d.replay_error',
);
const NEWEST_FIRST = new Keyset<DeadLetterRow>({ time: 'd.received_at', id: 'd.id' }, 'DESC', (row) => [row.received_at, row.id]);

/** The SQL of `inbound_dead_letters`. */
@Injectable()
export class DeadLetterRepository {
  async insert(db: Db, row: DeadLetterRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO inbound_dead_letters (id, received_at, raw_body, signature, error, unknown_phone_number_id, error_stack, replayed_at, replay_error)
          VALUES (${row.id}, ${row.received_at}, ${row.raw_body}, ${row.signature}, ${row.error}, ${row.unknown_phone_number_id}, ${row.error_stack},
                  ${row.replayed_at}, ${row.replay_error})`,
    );
  }

  /** Newest first, served in order by inbound_dead_letters_received_idx. Public so the tests can EXPLAIN it. */
  listStatement(page: PageQuery): Sql {
    const after = NEWEST_FIRST.after(page.cursor);
    return sql`SELECT ${COLUMNS} FROM inbound_dead_letters d ${sql.where(after ? [after] : [])} ${NEWEST_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, page: PageQuery): Promise<Page<DeadLetterRow>> {
    return NEWEST_FIRST.page(await query<DeadLetterRow>(db, this.listStatement(page)), page);
  }

  /** The bodies kept for a number no inbox had and not replayed yet, oldest first, on inbound_dead_letters_unrouted_idx. */
  unrouted(db: Db): Promise<{ id: string; unknown_phone_number_id: string }[]> {
    return query(
      db,
      sql`SELECT id, unknown_phone_number_id FROM inbound_dead_letters
           WHERE unknown_phone_number_id IS NOT NULL AND replayed_at IS NULL ORDER BY received_at, id`,
    );
  }

  /** The row, locked until the caller's transaction ends, so two replays of one body take turns. */
  lock(db: Db, id: string): Promise<DeadLetterRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM inbound_dead_letters d WHERE d.id = ${id} FOR UPDATE`);
  }

  markReplayed(db: Db, id: string, at: Date): Promise<DeadLetterRow | null> {
    return queryOne(
      db,
      sql`UPDATE inbound_dead_letters d SET replayed_at = ${at}, replay_error = NULL WHERE d.id = ${id} RETURNING ${COLUMNS}`,
    );
  }

  async recordReplayError(db: Db, id: string, error: string): Promise<void> {
    await execute(db, sql`UPDATE inbound_dead_letters SET replay_error = ${error} WHERE id = ${id}`);
  }
}
