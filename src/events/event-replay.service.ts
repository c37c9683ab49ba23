import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { parsePublicId } from '../common/ids';
import { DomainEvent } from './event.entity';
import { EventEnvelope, toEnvelope } from './events.service';

/** Where a replay starts: the position of the last event the client has, in the table's order. */
export interface ReplayCursor {
  createdAt: Date;
  id: string;
}

export interface ReplayedEvent {
  envelope: EventEnvelope;
  /**
   * The relay has not handed it on yet, or did so within the last minute: it may still be
   * published, and a stream that replays it must not send it a second time when it arrives live.
   */
  mayStillArrive: boolean;
}

/** Events recently relayed may still be on their way through the stream. */
const RELAY_GRACE = '1 minute';

interface EventRow {
  id: string;
  type: DomainEvent['type'];
  data: Record<string, unknown>;
  created_at: Date;
  may_still_arrive: boolean;
}

/**
 * Reads back recorded events for clients that reconnect with Last-Event-ID, in (created_at, id)
 * order on events_created_idx, a batch at a time.
 */
@Injectable()
export class EventReplayService {
  static readonly batchSize = 500;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The position of an event given by its public id; null when malformed, unknown or deleted. */
  async cursorOf(publicId: string): Promise<ReplayCursor | null> {
    const id = parsePublicId('evt', publicId);
    if (id === null) return null;
    const rows: { id: string; created_at: Date }[] = await this.dataSource.query('SELECT id, created_at FROM events WHERE id = $1', [id]);
    return rows.length > 0 ? { id: rows[0].id, createdAt: rows[0].created_at } : null;
  }

  /** Every event recorded after `cursor`, oldest first, in batches of at most `batchSize`. */
  async *eventsAfter(cursor: ReplayCursor): AsyncGenerator<ReplayedEvent[]> {
    let after = cursor;
    for (;;) {
      const rows: EventRow[] = await this.dataSource.query(
        `SELECT id, type, data, created_at, (relayed_at IS NULL OR relayed_at > now() - interval '${RELAY_GRACE}') AS may_still_arrive
           FROM events
          WHERE (created_at, id) > ($1, $2)
          ORDER BY created_at, id
          LIMIT $3`,
        [after.createdAt, after.id, EventReplayService.batchSize],
      );
      if (rows.length === 0) return;
      yield rows.map((row) => ({ envelope: toEnvelope(toDomainEvent(row)), mayStillArrive: row.may_still_arrive }));
      if (rows.length < EventReplayService.batchSize) return;
      const last = rows[rows.length - 1];
      after = { id: last.id, createdAt: last.created_at };
    }
  }
}

function toDomainEvent(row: EventRow): DomainEvent {
  return Object.assign(new DomainEvent(), { id: row.id, type: row.type, data: row.data, createdAt: row.created_at, relayedAt: null });
}
