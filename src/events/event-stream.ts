import type { EventEnvelope } from './event.entity';

/** An event as the stream carries it: the envelope, and who may see it. */
export interface StreamedEvent {
  envelope: EventEnvelope;
  /** Null: every logged-in user; else the uuid of the one user whose stream carries it. */
  audience: string | null;
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
