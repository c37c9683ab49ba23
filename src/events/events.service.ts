import { Injectable } from '@nestjs/common';
import { newUuid } from '../common/ids';
import type { Db } from '../database/sql';
import type { EventRow } from './event.entity';
import { EventRepository } from './event.repository';
import type { EventType } from './event-types';

/**
 * Writes events into the outbox. Always called with the transaction's `Db`, so an event exists
 * exactly when the change that caused it was committed.
 */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventRepository) {}

  async record(db: Db, type: EventType, data: Record<string, unknown>): Promise<EventRow> {
    return this.insert(db, type, data, null);
  }

  /** An event for one user's eyes only (a type of USER_EVENT_TYPES): on their stream, on no one else's, never to webhooks. */
  async recordForUser(db: Db, userId: string, type: EventType, data: Record<string, unknown>): Promise<EventRow> {
    return this.insert(db, type, data, userId);
  }

  private async insert(db: Db, type: EventType, data: Record<string, unknown>, audience: string | null): Promise<EventRow> {
    const now = new Date();
    const event: EventRow = { id: newUuid(now.getTime()), type, data, created_at: now, audience };
    await this.events.insert(db, event);
    return event;
  }

  /** Records several events in one statement, in the caller's transaction. */
  async recordMany(db: Db, events: { type: EventType; data: Record<string, unknown> }[]): Promise<void> {
    const now = new Date();
    await this.events.insertMany(
      db,
      events.map(({ type, data }) => ({ id: newUuid(now.getTime()), type, data, created_at: now, audience: null })),
    );
  }
}
