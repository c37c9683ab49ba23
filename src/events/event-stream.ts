import type { EventEnvelope } from './event.entity';
import { ADMIN_EVENT_TYPES } from './event-types';

/** An event as the stream carries it: the envelope, and who may see it. */
export interface StreamedEvent {
  envelope: EventEnvelope;
  /** Null: every logged-in user; else the uuid of the one user whose stream carries it. */
  audience: string | null;
  /** Null: about no inbox; else the uuid of the inbox whose members' (and admins') streams carry it. */
  inboxId: string | null;
}

/** Who a stream is for: their own events, and everyone's of the inboxes they see (null: every inbox), and admins' events for an admin. */
export interface StreamViewer {
  userId: string;
  inboxes: readonly string[] | null;
  admin: boolean;
}

/** Whether the viewer's stream carries an event of this type, audience and inbox. */
export function sees(viewer: StreamViewer, event: Pick<StreamedEvent, 'audience' | 'inboxId'> & { type: string }): boolean {
  if (event.audience !== null && event.audience !== viewer.userId) return false;
  if (!viewer.admin && (ADMIN_EVENT_TYPES as readonly string[]).includes(event.type)) return false;
  return event.inboxId === null || viewer.inboxes === null || viewer.inboxes.includes(event.inboxId);
}

export type EventListener = (event: StreamedEvent) => void;

/**
 * Live fan-out of recorded events to the SSE clients of every instance. Only the relay publishes
 * (each event once, from the instance that relayed it); every instance delivers to its own clients,
 * each client only what its user may see.
 */
export abstract class EventStream {
  abstract publish(events: StreamedEvent[]): Promise<void>;
  /** Calls `listener` for every event published from now on; answers the unsubscribe function. */
  abstract subscribe(listener: EventListener): () => void;
}
