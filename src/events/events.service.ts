import { Injectable } from '@nestjs/common';
import { newUuid } from '../common/ids';
import type { Db } from '../database/sql';
import type { EventRow } from './event.entity';
import { EventRepository } from './event.repository';
import type { EventPayloads, TypedEventType } from './event-payloads';

/**
 * Writes events into the outbox. Always called with the transaction's `Db`, so an event exists
 * exactly when the change that caused it was committed.
 */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventRepository) {}

  /** Records an event of `type` with its payload, for everyone's stream and the webhooks. */
  async record<Type extends TypedEventType>(db: Db, type: Type, data: EventPayloads[Type]): Promise<EventRow> {
    return this.insert(db, type, data, null);
  }

  /** An event for one user's eyes only (a type of USER_EVENT_TYPES): on their stream, on no one else's, never to webhooks. */
  async recordForUser<Type extends TypedEventType>(db: Db, userId: string, type: Type, data: EventPayloads[Type]): Promise<EventRow> {
    return this.insert(db, type, data, userId);
  }

  private async insert(db: Db, type: TypedEventType, data: EventPayloads[TypedEventType], audience: string | null): Promise<EventRow> {
    const event = rowOf(type, data, audience, new Date());
    await this.events.insert(db, event);
    return event;
  }

  /** Records several events of one type in one statement, in the caller's transaction. */
  async recordMany<Type extends TypedEventType>(db: Db, type: Type, payloads: EventPayloads[Type][]): Promise<void> {
    const now = new Date();
    await this.events.insertMany(
      db,
      payloads.map((data) => rowOf(type, data, null, now)),
    );
  }
}

/** The row of an event: its payload stored as the JSON object it is. */
function rowOf(type: TypedEventType, data: EventPayloads[TypedEventType], audience: string | null, at: Date): EventRow {
  return { id: newUuid(at.getTime()), type, data: data as unknown as Record<string, unknown>, created_at: at, audience };
}
