import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newUuid, toPublicId } from '../common/ids';
import { DomainEvent } from './event.entity';
import type { EventType } from './event-types';

/** The seed's event envelope, as deliveries and the stream carry it. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

export function toEnvelope(event: DomainEvent): EventEnvelope {
  return { id: toPublicId('evt', event.id), type: event.type, created_at: event.createdAt.toISOString(), data: event.data };
}

/**
 * Writes events into the outbox. Always called with the transaction's EntityManager, so an
 * event exists exactly when the change that caused it was committed.
 */
@Injectable()
export class EventsService {
  async record(manager: EntityManager, type: EventType, data: Record<string, unknown>): Promise<DomainEvent> {
    const now = new Date();
    const event = manager.create(DomainEvent, { id: newUuid(now.getTime()), type, data, createdAt: now, relayedAt: null });
    await manager.query('INSERT INTO events (id, type, data, created_at) VALUES ($1, $2, $3, $4)', [event.id, type, JSON.stringify(data), now]);
    return event;
  }
}
