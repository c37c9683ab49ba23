import { Injectable } from '@nestjs/common';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { EventRow } from './event.entity';
import type { StreamViewer } from './event-stream';
import { ADMIN_EVENT_TYPES } from './event-types';

/** An event read back for a replay: its place in the stream, and whether it may still arrive live. */
export interface ReplayRow extends EventRow {
  /** bigint, as pg answers it: a string. */
  seq: string;
  may_still_arrive: boolean;
}

/** Any fixed number, the same in every replica: the relays take turns numbering what they relay. */
const RELAY_LOCK_KEY = 7_263_510_002;

/** Events recently relayed may still be on their way through the stream. */
const RELAY_GRACE = sql.raw(`interval '1 minute'`);

/** The SQL of the `events` table (the outbox). */
@Injectable()
export class EventRepository {
  async insert(db: Db, event: EventRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO events (id, type, data, created_at, audience, inbox_id, automated)
          VALUES (${event.id}, ${event.type}, ${JSON.stringify(event.data)}, ${event.created_at}, ${event.audience}, ${event.inbox_id}, ${event.automated})`,
    );
  }

  /** Inserts many events in one statement (a bulk change, such as a CSV import, records one per row). */
  async insertMany(db: Db, events: EventRow[]): Promise<void> {
    if (events.length === 0) return;
    await execute(
      db,
      sql`INSERT INTO events (id, type, data, created_at, inbox_id, automated)
          SELECT r.id, r.type, r.data, r.created_at, r.inbox_id, r.automated
            FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb)
              AS r(id uuid, type text, data jsonb, created_at timestamptz, inbox_id uuid, automated boolean)`,
    );
  }

  /** When the oldest event not yet relayed was recorded, or null when all are relayed (the outbox's lag). */
  async oldestUnrelayedAt(db: Db): Promise<Date | null> {
    return (await queryOne<{ at: Date | null }>(db, sql`SELECT min(created_at) AS at FROM events WHERE relayed_at IS NULL`))?.at ?? null;
  }

  /** The oldest events not yet relayed, locked for the caller's transaction; others' locked rows are skipped, so replicas share the outbox. */
  claimUnrelayed(db: Db, limit: number): Promise<EventRow[]> {
    return query(
      db,
      sql`SELECT id, type, data, created_at, audience, inbox_id, automated FROM events WHERE relayed_at IS NULL ORDER BY created_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  /**
   * Waits for any other relay's transaction to end, and keeps others waiting until the caller's
   * ends: numbers are then handed out in commit order, so a resume after number n misses nothing.
   */
  async lockForRelay(db: Db): Promise<void> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(${RELAY_LOCK_KEY})`);
  }

  /** Marks the events relayed and numbers them, in the order given, after every event relayed before. */
  async markRelayed(db: Db, ids: string[]): Promise<void> {
    await execute(
      db,
      sql`UPDATE events e SET relayed_at = now(), seq = numbered.seq
            FROM (SELECT id, nextval('events_seq') AS seq FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS given (id, position) ORDER BY position) AS numbered
           WHERE e.id = numbered.id`,
    );
  }

  /** The id of the newest relayed event the user (uuid) may see, on events_seq_key read backwards; null when there is none. */
  async newestVisible(db: Db, userId: string): Promise<string | null> {
    const row = await queryOne<{ id: string }>(
      db,
      sql`SELECT id FROM events WHERE seq IS NOT NULL AND (audience IS NULL OR audience = ${userId}) ORDER BY seq DESC LIMIT 1`,
    );
    return row?.id ?? null;
  }

  /** An event's place in the stream; null when unknown, pruned or not relayed yet (it will arrive live). */
  async seqOf(db: Db, id: string): Promise<string | null> {
    return (await queryOne<{ seq: string | null }>(db, sql`SELECT seq FROM events WHERE id = ${id}`))?.seq ?? null;
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

  /**
   * Relayed events after a place in the stream that the viewer may see (everyone's, and their own,
   * of the inboxes they see), in stream order, served by events_seq_key.
   */
  after(db: Db, seq: string, viewer: StreamViewer, limit: number): Promise<ReplayRow[]> {
    const inboxes = viewer.inboxes === null ? sql`` : sql`AND (inbox_id IS NULL OR inbox_id = ANY(${[...viewer.inboxes]}::uuid[]))`;
    const types = viewer.admin ? sql`` : sql`AND type <> ALL(${[...ADMIN_EVENT_TYPES]}::text[])`;
    return query(
      db,
      sql`SELECT id, type, data, created_at, audience, inbox_id, seq, relayed_at > now() - ${RELAY_GRACE} AS may_still_arrive
            FROM events
           WHERE seq > ${seq} AND (audience IS NULL OR audience = ${viewer.userId}) ${inboxes} ${types}
           ORDER BY seq
           LIMIT ${limit}`,
    );
  }
}
