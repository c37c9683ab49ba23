import type { EventEnvelope } from './event.entity';

export type EventListener = (event: EventEnvelope) => void;

/**
 * Live fan-out of recorded events to the SSE clients of every instance. Only the relay publishes
 * (each event once, from the instance that relayed it); every instance delivers to its own clients.
 */
export abstract class EventStream {
  abstract publish(events: EventEnvelope[]): Promise<void>;
  /** Calls `listener` for every event published from now on; answers the unsubscribe function. */
  abstract subscribe(listener: EventListener): () => void;
}
