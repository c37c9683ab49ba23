import { Injectable } from '@nestjs/common';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { EventRow } from './event.entity';

/** An event read back for a replay, with whether it may still arrive through the live stream. */
export interface ReplayRow extends EventRow {
  may_still_arrive: boolean;
}

/** Events recently relayed may still be on their way through the stream. */
const RELAY_GRACE = sql.raw(`interval '1 minute'`);

/** The SQL of the `events` table (the outbox). */
@Injectable()
export class EventRepository {
  async insert(db: Db, event: EventRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO events (id, type, data, created_at) VALUES (${event.id}, ${event.type}, ${JSON.stringify(event.data)}, ${event.created_at})`,
    );
  }

  /** The oldest events not yet relayed, locked for the caller's transaction; others' locked rows are skipped, so replicas share the outbox. */
  claimUnrelayed(db: Db, limit: number): Promise<EventRow[]> {
    return query(
      db,
      sql`SELECT id, type, data, created_at FROM events WHERE relayed_at IS NULL ORDER BY created_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  async markRelayed(db: Db, ids: string[]): Promise<void> {
    await execute(db, sql`UPDATE events SET relayed_at = now() WHERE id = ANY(${ids}::uuid[])`);
  }

  /**
   * Up to `limit` events created and relayed before `before`, after `after` in (created_at, id)
   * order (on events_created_idx), locked for the caller's transaction; rows another replica
   * holds are skipped. Never an unrelayed event.
   */
  claimExpired(
    db: Db,
    before: Date,
    after: Pick<EventRow, 'id' | 'created_at'> | null,
    limit: number,
  ): Promise<Pick<EventRow, 'id' | 'created_at'>[]> {
    return query(
      db,
      sql`SELECT id, created_at FROM events
           WHERE created_at < ${before} AND relayed_at < ${before} ${after ? sql`AND (created_at, id) > (${after.created_at}, ${after.id})` : sql.raw('')}
           ORDER BY created_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  /** Deletes these events; answers how many. */
  delete(db: Db, ids: string[]): Promise<number> {
    return ids.length === 0 ? Promise.resolve(0) : execute(db, sql`DELETE FROM events WHERE id = ANY(${ids}::uuid[])`);
  }

  /** The position of an event in (created_at, id) order, or null when unknown or pruned. */
  position(db: Db, id: string): Promise<Pick<EventRow, 'id' | 'created_at'> | null> {
    return queryOne(db, sql`SELECT id, created_at FROM events WHERE id = ${id}`);
  }

  /** Events after a position, oldest first, served by events_created_idx. */
  after(db: Db, position: Pick<EventRow, 'id' | 'created_at'>, limit: number): Promise<ReplayRow[]> {
    return query(
      db,
      sql`SELECT id, type, data, created_at, (relayed_at IS NULL OR relayed_at > now() - ${RELAY_GRACE}) AS may_still_arrive
            FROM events
           WHERE (created_at, id) > (${position.created_at}, ${position.id})
           ORDER BY created_at, id
           LIMIT ${limit}`,
    );
  }
}
