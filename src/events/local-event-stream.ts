import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { EventListener, EventStream, StreamedEvent } from './event-stream';
import type { StreamInterruptions } from './stream-interruptions';

/**
 * Fans events out to the listeners of this process: hands each published event to every listener
 * synchronously, in publish order.
 */
export class LocalFanOut {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  constructor(private readonly logger: Logger) {}

  emit(event: StreamedEvent): void {
    this.emitter.emit('event', event);
  }

  subscribe(listener: EventListener): () => void {
    // One failing listener (one client) neither stops the others nor reaches the publisher.
    const guarded = (event: StreamedEvent): void => {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(
          `An event listener failed on ${event.envelope.id}: ${String(error)}`,
          error instanceof Error ? error.stack : undefined,
        );
      }
    };
    this.emitter.on('event', guarded);
    return () => {
      this.emitter.off('event', guarded);
    };
  }
}

/**
 * The stream of a single instance (the embedded default, without REDIS_URL): in-process, so it
 * is never interrupted.
 */
@Injectable()
export class LocalEventStream extends EventStream implements StreamInterruptions {
  private readonly fanOut = new LocalFanOut(new Logger(LocalEventStream.name));

  publish(events: StreamedEvent[]): Promise<void> {
    for (const event of events) this.fanOut.emit(event);
    return Promise.resolve();
  }

  subscribe(listener: EventListener): () => void {
    return this.fanOut.subscribe(listener);
  }

  onInterrupted(): () => void {
    return () => undefined;
  }
}
