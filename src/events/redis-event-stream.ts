import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { closeRedis } from '../common/redis';
import { AppConfig } from '../config/app-config';
import { EventListener, EventStream, StreamedEvent } from './event-stream';
import type { EventEnvelope } from './event.entity';
import { LocalFanOut } from './local-event-stream';
import type { StreamInterruptions } from './stream-interruptions';

const EVENT_ID = /^evt_[0-9a-f]{32}$/;
const EVENT_TYPE = /^[a-z][a-z_]*(\.[a-z][a-z_]*)*$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A message on the channel: an event for everyone is its envelope as JSON (as before events had
 * an audience), an event for one user `{"audience": "<uuid>", "event": <envelope>}`, one of an
 * inbox `{"inbox": "<uuid>", "event": <envelope>}`, which an instance that does not know audiences
 * or inboxes drops as malformed rather than showing it to everyone.
 */
export function toStreamMessage(event: StreamedEvent): string {
  if (event.audience === null && event.inboxId === null) return JSON.stringify(event.envelope);
  return JSON.stringify({
    ...(event.audience === null ? {} : { audience: event.audience }),
    ...(event.inboxId === null ? {} : { inbox: event.inboxId }),
    event: event.envelope,
  });
}

/** The event a message carries, or null when it is not one (see `toStreamMessage`). */
export function parseStreamMessage(message: string): StreamedEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  if ('audience' in value || 'inbox' in value) {
    const { audience, inbox, event } = value as { audience?: unknown; inbox?: unknown; event: unknown };
    const envelope = parseEnvelope(event);
    const uuidOrNull = (field: unknown) => (field === undefined ? null : typeof field === 'string' && UUID.test(field) ? field : undefined);
    const [audienceId, inboxId] = [uuidOrNull(audience), uuidOrNull(inbox)];
    return envelope && audienceId !== undefined && inboxId !== undefined ? { envelope, audience: audienceId, inboxId } : null;
  }
  const envelope = parseEnvelope(value);
  return envelope ? { envelope, audience: null, inboxId: null } : null;
}

/**
 * The envelope, or null when it is not one. Strict about what ends up in an SSE frame's `id:` and
 * `event:` lines, which must never contain a line break.
 */
function parseEnvelope(value: unknown): EventEnvelope | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { id, type, created_at: createdAt, data } = value as Record<string, unknown>;
  if (typeof id !== 'string' || !EVENT_ID.test(id)) return null;
  if (typeof type !== 'string' || !EVENT_TYPE.test(type)) return null;
  if (typeof createdAt !== 'string') return null;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  return value as EventEnvelope;
}

/**
 * The stream shared by every instance on one Redis (REDIS_URL): a publish goes to the Redis channel
 * `${REDIS_PREFIX}events`, one message per event (`toStreamMessage`), and every instance, the publishing one
 * included, hands what its subscriber connection receives to its own listeners. Pub/sub keeps
 * nothing: what is published while the subscriber is disconnected is lost to this instance, so
 * once it is subscribed again it reports an interruption (see StreamInterruptions).
 */
@Injectable()
export class RedisEventStream extends EventStream implements StreamInterruptions, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RedisEventStream.name);
  private readonly fanOut = new LocalFanOut(this.logger);
  private readonly interruptionListeners = new Set<() => void>();
  readonly channel: string;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private subscribed = false;

  constructor(config: AppConfig) {
    super();
    if (!config.redisUrl) throw new Error('RedisEventStream needs REDIS_URL');
    this.channel = `${config.redisPrefix}events`;
    this.publisher = new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
    // A connection in subscriber mode can run nothing else: the second one only listens.
    this.subscriber = this.publisher.duplicate({ connectionName: `${this.channel}:subscriber` });
    this.logErrorsOf(this.publisher, 'publisher');
    this.logErrorsOf(this.subscriber, 'subscriber');
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    this.subscriber.on('ready', () => {
      if (this.subscribed) void this.resubscribed();
    });
  }

  /**
   * Subscribed before the application serves, so no client connects to a deaf instance. While
   * Redis is unreachable the service starts all the same: the subscription is made when Redis
   * comes back (the 'ready' handler), and the streams then resume from the table.
   */
  async onModuleInit(): Promise<void> {
    this.subscribed = true;
    try {
      await this.subscriber.subscribe(this.channel);
    } catch (error) {
      this.logger.warn(`Could not subscribe to ${this.channel} (${(error as Error).message}): live events wait until Redis is back`);
    }
  }

  async publish(events: StreamedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const pipeline = this.publisher.pipeline();
    for (const event of events) pipeline.publish(this.channel, toStreamMessage(event));
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed) throw failed[0] as Error;
  }

  subscribe(listener: EventListener): () => void {
    return this.fanOut.subscribe(listener);
  }

  onInterrupted(listener: () => void): () => void {
    this.interruptionListeners.add(listener);
    return () => {
      this.interruptionListeners.delete(listener);
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([closeRedis(this.subscriber), closeRedis(this.publisher)]);
  }

  private receive(channel: string, message: string): void {
    if (channel !== this.channel) return;
    const event = parseStreamMessage(message);
    if (!event) {
      this.logger.warn(`Ignored a malformed message on ${this.channel} (${message.length} characters)`);
      return;
    }
    this.fanOut.emit(event);
  }

  /**
   * After a reconnection (ioredis subscribes again by itself; subscribing once more is harmless and
   * tells when it is done), everyone listening learns that events may have been missed.
   */
  private async resubscribed(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
    } catch (error) {
      this.logger.warn(`Subscribing to ${this.channel} again failed: ${String(error)}`);
      return;
    }
    this.logger.warn(
      `Subscribed to ${this.channel} again after a disconnection: ending the event streams, whose clients resume with Last-Event-ID`,
    );
    for (const listener of this.interruptionListeners) listener();
  }

  /** One line per outage rather than one per reconnection attempt. */
  private logErrorsOf(connection: Redis, role: string): void {
    let lastError: string | null = null;
    connection.on('error', (error: Error) => {
      if (error.message === lastError) return;
      lastError = error.message;
      this.logger.warn(`Redis ${role} connection: ${error.message}`);
    });
    connection.on('ready', () => {
      if (lastError !== null) this.logger.log(`Redis ${role} connection is back`);
      lastError = null;
    });
  }
}
