import { Injectable } from '@nestjs/common';
import { newUuid, parsePublicId } from '../common/ids';
import type { Db } from '../database/sql';
import type { EventRow } from './event.entity';
import { EventRepository } from './event.repository';
import type { EventPayloads, TypedEventType } from './event-payloads';

/** The transactions (their query runners) in which automation acts: the events they record are `automated`. */
const automating = new WeakSet<object>();

/**
 * Writes events into the outbox. Always called with the transaction's `Db`, so an event exists
 * exactly when the change that caused it was committed.
 */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventRepository) {}

  /**
   * Records an event of `type` with its payload, for everyone's stream and the webhooks. Its inbox
   * (whose members' streams carry it) is its payload's conversation's; `inboxId` names it (uuid)
   * for a payload that carries only the conversation's id.
   */
  async record<Type extends TypedEventType>(
    db: Db,
    type: Type,
    data: EventPayloads[Type],
    about: { inboxId?: string } = {},
  ): Promise<EventRow> {
    const event = rowOf(db, type, data, null, new Date(), about.inboxId);
    await this.events.insert(db, event);
    return event;
  }

  /**
   * Runs `act` in the caller's transaction as automation: the events it records are `automated`,
   * and no rule runs on them (a rule's own changes never set rules off).
   */
  async asAutomation<T>(db: Db, act: () => Promise<T>): Promise<T> {
    const runner = db.queryRunner;
    if (!runner) throw new Error('asAutomation needs a transaction');
    automating.add(runner);
    try {
      return await act();
    } finally {
      automating.delete(runner);
    }
  }

  /** An event for one user's eyes only (a type of USER_EVENT_TYPES): on their stream, on no one else's, never to webhooks. */
  async recordForUser<Type extends TypedEventType>(db: Db, userId: string, type: Type, data: EventPayloads[Type]): Promise<EventRow> {
    return this.insert(db, type, data, userId);
  }

  private async insert(db: Db, type: TypedEventType, data: EventPayloads[TypedEventType], audience: string | null): Promise<EventRow> {
    const event = rowOf(db, type, data, audience, new Date());
    await this.events.insert(db, event);
    return event;
  }

  /** Records several events of one type in one statement, in the caller's transaction. */
  async recordMany<Type extends TypedEventType>(db: Db, type: Type, payloads: EventPayloads[Type][]): Promise<void> {
    const now = new Date();
    await this.events.insertMany(
      db,
      payloads.map((data) => rowOf(db, type, data, null, now)),
    );
  }
}

/** The row of an event: its payload stored as the JSON object it is. */
function rowOf(
  db: Db,
  type: TypedEventType,
  data: EventPayloads[TypedEventType],
  audience: string | null,
  at: Date,
  inboxId?: string,
): EventRow {
  const payload = data as unknown as Record<string, unknown>;
  return {
    id: newUuid(at.getTime()),
    type,
    data: payload,
    created_at: at,
    audience,
    inbox_id: inboxId ?? conversationInboxOf(payload),
    automated: db.queryRunner !== undefined && automating.has(db.queryRunner),
  };
}

/** The inbox of the conversation a payload carries (`conversation.inbox_id`, a public id), as a uuid; null without one. */
function conversationInboxOf(payload: Record<string, unknown>): string | null {
  const publicId = (payload.conversation as { inbox_id?: unknown } | undefined)?.inbox_id;
  return typeof publicId === 'string' ? parsePublicId('inb', publicId) : null;
}
