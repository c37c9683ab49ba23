import { Injectable } from '@nestjs/common';
import { parsePublicId, toPublicId } from '../common/ids';
import { Database } from '../database/database';
import type { EventEnvelope } from './event.entity';
import { toEnvelope } from './event-envelope';
import { EventRepository } from './event.repository';
import type { StreamViewer } from './event-stream';

/** Where a replay starts: the place in the stream (`seq`) of the last event the client has. */
export type ReplayCursor = string;

export interface ReplayedEvent {
  envelope: EventEnvelope;
  /**
   * The relay has not handed it on yet, or did so within the last minute: it may still be
   * published, and a stream that replays it must not send it a second time when it arrives live.
   */
  mayStillArrive: boolean;
}

/** Reads back recorded events for clients that reconnect with Last-Event-ID, a batch at a time. */
@Injectable()
export class EventReplayService {
  static readonly batchSize = 500;

  constructor(
    private readonly database: Database,
    private readonly events: EventRepository,
  ) {}

  /** The place in the stream of an event given by its public id; null when malformed, unknown or pruned. */
  cursorOf(publicId: string): Promise<ReplayCursor | null> {
    const id = parsePublicId('evt', publicId);
    return id === null ? Promise.resolve(null) : this.events.seqOf(this.database.db, id);
  }

  /** The public id of the newest event the user (uuid) may see: where a client that saw none stands. */
  async newestFor(userId: string): Promise<string | null> {
    const id = await this.events.newestVisible(this.database.db, userId);
    return id === null ? null : toPublicId('evt', id);
  }

  /** Every event relayed after `cursor` that the viewer may see, in stream order, in batches of at most `batchSize`. */
  async *eventsAfter(cursor: ReplayCursor, viewer: StreamViewer): AsyncGenerator<ReplayedEvent[]> {
    let after = cursor;
    for (;;) {
      const rows = await this.events.after(this.database.db, after, viewer, EventReplayService.batchSize);
      if (rows.length === 0) return;
      yield rows.map((row) => ({ envelope: toEnvelope(row), mayStillArrive: row.may_still_arrive }));
      if (rows.length < EventReplayService.batchSize) return;
      after = rows[rows.length - 1].seq;
    }
  }
}
