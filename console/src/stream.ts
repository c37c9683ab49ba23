// The service's own list, shared at build time, and the payloads generated from its OpenAPI document: the two cannot drift.
import { EVENT_TYPES } from '../../src/events/event-types';
import type { components, EventPayloads } from './api/schema';

/** The caller's tab counts, as the stream sends them (`event: counts`) at connect and whenever they change. */
export type StreamCounts = components['schemas']['ConversationCountsResponse'];

/** The event envelope every frame of the stream carries, its `data` typed by its `type`. */
export type StreamEvent = {
  [Type in keyof EventPayloads]: { id: string; type: Type; created_at: string; data: EventPayloads[Type] };
}[keyof EventPayloads];

export type StreamState = 'connecting' | 'live' | 'reconnecting';

const MAX_BACKOFF_MS = 30_000;

/**
 * The live event stream (`GET /api/v1/events/stream`), resumed after any drop. Each connection
 * opens with a fresh one-time ticket (EventSource cannot send the bearer header, and the token
 * never goes in a URL), so the browser's own reconnection, which would reuse a spent ticket, is
 * never left to run: after any error this reconnects with backoff and a new ticket, asking for the
 * events after the last one seen, so none is missed.
 */
export class EventStream {
  private source: EventSource | null = null;
  private lastEventId: string | null = null;
  private retryTimer: number | undefined;
  private attempts = 0;
  private readonly handlers = new Set<(event: StreamEvent) => void>();
  private readonly stateHandlers = new Set<(state: StreamState) => void>();
  private readonly resyncHandlers = new Set<() => void>();
  private readonly countsHandlers = new Set<(counts: StreamCounts) => void>();
  private counts: StreamCounts | null = null;
  /** Whether the open connection started without a place and has not yet sent its first frame. */
  private resyncDue = false;
  state: StreamState = 'connecting';

  private stopped = false;
  /** Bumped by each connect and stop: a ticket that arrives for an earlier one opens nothing (a quick stop and start would open two streams). */
  private generation = 0;

  /** `ticket` asks the service for a stream ticket, with the session's current token, at each connection. */
  constructor(private readonly ticket: () => Promise<string>) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.generation += 1;
    window.clearTimeout(this.retryTimer);
    this.source?.close();
    this.source = null;
  }

  on(handler: (event: StreamEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  onState(handler: (state: StreamState) => void): () => void {
    this.stateHandlers.add(handler);
    return () => this.stateHandlers.delete(handler);
  }

  /** The caller's tab counts: now, when the stream has sent them already, and each time they change. */
  onCounts(handler: (counts: StreamCounts) => void): () => void {
    this.countsHandlers.add(handler);
    if (this.counts) handler(this.counts);
    return () => this.countsHandlers.delete(handler);
  }

  /**
   * Called when a connection that had no event to resume from has its place: the first one, one
   * after a drop before any event arrived, and one whose last event is past retention (the
   * service's `resync` frame). What the page shows was read before that place, and an
   * event recorded in between reaches no one, so it must be asked again. Called at the
   * connection's first frame, which the service writes after it follows the new events: a read
   * started then misses nothing.
   */
  onResync(handler: () => void): () => void {
    this.resyncHandlers.add(handler);
    return () => this.resyncHandlers.delete(handler);
  }

  private setState(state: StreamState): void {
    this.state = state;
    for (const handler of this.stateHandlers) handler(state);
  }

  private connect(): void {
    const generation = ++this.generation;
    this.ticket().then(
      (ticket) => {
        if (!this.stopped && generation === this.generation) this.open(ticket);
      },
      () => {
        if (!this.stopped && generation === this.generation) this.scheduleReconnect();
      },
    );
  }

  private open(ticket: string): void {
    const query = new URLSearchParams({ ticket });
    if (this.lastEventId) query.set('last_event_id', this.lastEventId);
    this.resyncDue = !this.lastEventId;
    // One connection at a time, whatever called connect.
    this.source?.close();
    const source = new EventSource(`/api/v1/events/stream?${query}`);
    this.source = source;
    source.onopen = () => {
      this.attempts = 0;
      this.setState('live');
    };
    source.onerror = () => {
      // The browser's own retry would present the spent ticket again: a new connection, with a new ticket.
      source.close();
      this.scheduleReconnect();
    };
    // The stream starts with the newest event's id (an `id:` line) and the counts: the counts frame
    // carries that position, so a client that saw no event yet can still resume from it.
    source.addEventListener('counts', (frame: MessageEvent<string>) => {
      if (frame.lastEventId) this.lastEventId = frame.lastEventId;
      this.placed();
      try {
        this.counts = JSON.parse(frame.data) as StreamCounts;
      } catch {
        return;
      }
      for (const handler of this.countsHandlers) handler(this.counts);
    });
    // The events after the last one seen cannot be replayed (past retention): the pages read again what they show.
    source.addEventListener('resync', (frame: MessageEvent<string>) => {
      // Without a place (no event recorded yet), the next connection starts afresh.
      this.lastEventId = frame.lastEventId || null;
      this.resync();
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (frame: MessageEvent<string>) => {
        if (frame.lastEventId) this.lastEventId = frame.lastEventId;
        this.placed();
        let event: StreamEvent;
        try {
          event = JSON.parse(frame.data) as StreamEvent;
        } catch {
          return;
        }
        for (const handler of this.handlers) handler(event);
      });
    }
  }

  /** The connection's first frame: the service follows the new events for it from here. */
  private placed(): void {
    if (!this.resyncDue) return;
    this.resyncDue = false;
    this.resync();
  }

  /** The pages read what they show again (the onResync handlers): what they hold is not what the events since would build on. */
  resync(): void {
    for (const handler of this.resyncHandlers) handler();
  }

  private scheduleReconnect(): void {
    this.setState('reconnecting');
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.attempts) * (0.5 + Math.random() / 2);
    this.attempts += 1;
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
  }
}
