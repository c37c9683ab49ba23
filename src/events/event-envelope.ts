import { toPublicId } from '../common/ids';
import type { EventEnvelope, EventRow } from './event.entity';

/** The one mapping from a recorded event to the envelope every consumer sends. */
export function toEnvelope(event: Pick<EventRow, 'id' | 'type' | 'data' | 'created_at'>): EventEnvelope {
  return { id: toPublicId('evt', event.id), type: event.type, created_at: event.created_at.toISOString(), data: event.data };
}
