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
 * The live event stream (`GET /api/v1/events/stream`), resumed after any drop: the browser's
 * EventSource reconnects by itself with `Last-Event-ID` after a network error, but gives up when
 * the service answers an error (a restart's 503, a 429); then this reconnects with backoff, asking
 * for the events after the last one seen, so none is missed.
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
  private dropped = false;
  state: StreamState = 'connecting';

  /** `token` is asked at each connection: a password change replaces the session's token. */
  constructor(private readonly token: () => string | null) {}

  start(): void {
    this.connect();
  }

  stop(): void {
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
   * Called when the stream comes back after a drop with no event to resume from (none had arrived
   * yet): the service cannot know what was missed, so what the page shows must be asked again.
   */
  onResync(handler: () => void): () => void {
    this.resyncHandlers.add(handler);
    return () => this.resyncHandlers.delete(handler);
  }

  private setState(state: StreamState): void {
    if (state !== 'live' && this.state === 'live') this.dropped = true;
    this.state = state;
    for (const handler of this.stateHandlers) handler(state);
  }

  private connect(): void {
    const query = new URLSearchParams({ access_token: this.token() ?? '' });
    if (this.lastEventId) query.set('last_event_id', this.lastEventId);
    const source = new EventSource(`/api/v1/events/stream?${query}`);
    this.source = source;
    source.onopen = () => {
      this.attempts = 0;
      this.setState('live');
      if (this.dropped && this.lastEventId === null) for (const handler of this.resyncHandlers) handler();
      this.dropped = false;
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // Refused: the browser will not try again on its own.
        source.close();
        this.scheduleReconnect();
      } else {
        this.setState('reconnecting');
      }
    };
    // The stream starts with the newest event's id (an `id:` line) and the counts: the counts frame
    // carries that position, so a client that saw no event yet can still resume from it.
    source.addEventListener('counts', (frame: MessageEvent<string>) => {
      if (frame.lastEventId) this.lastEventId = frame.lastEventId;
      try {
        this.counts = JSON.parse(frame.data) as StreamCounts;
      } catch {
        return;
      }
      for (const handler of this.countsHandlers) handler(this.counts);
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (frame: MessageEvent<string>) => {
        if (frame.lastEventId) this.lastEventId = frame.lastEventId;
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

  private scheduleReconnect(): void {
    this.setState('reconnecting');
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.attempts) * (0.5 + Math.random() / 2);
    this.attempts += 1;
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
  }
}
