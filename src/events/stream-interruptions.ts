/**
 * Tells the SSE connections that the live stream may have lost events: Redis pub/sub keeps nothing
 * for a subscriber while it is disconnected. The connections then end, and their clients resume
 * from the events table with Last-Event-ID. Provided by the EventStream engine in use.
 */
export abstract class StreamInterruptions {
  /** Calls `listener` after each interruption, once events flow again; answers the unsubscribe function. */
  abstract onInterrupted(listener: () => void): () => void;
}
