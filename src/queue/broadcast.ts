import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { EventEmitter } from 'node:events';
import { closeRedis } from '../common/redis';
import { AppConfig } from '../config/app-config';

export type BroadcastListener = (message: string) => void;

/**
 * Short messages to every instance, this one included: what one replica changes that the others
 * keep in memory (a user's cached record). Through Redis pub/sub with REDIS_URL, in process
 * otherwise. Best effort: a message published while Redis is down is lost, so what listens must
 * also let its memory expire on its own.
 */
export abstract class Broadcast {
  abstract publish(topic: string, message: string): Promise<void>;
  abstract subscribe(topic: string, listener: BroadcastListener): void;
}

@Injectable()
export class LocalBroadcast extends Broadcast {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  publish(topic: string, message: string): Promise<void> {
    this.emitter.emit(topic, message);
    return Promise.resolve();
  }

  subscribe(topic: string, listener: BroadcastListener): void {
    this.emitter.on(topic, listener);
  }
}

/** Topics are the Redis channels `${REDIS_PREFIX}broadcast:<topic>`. */
@Injectable()
export class RedisBroadcast extends Broadcast implements OnApplicationShutdown {
  private readonly logger = new Logger(RedisBroadcast.name);
  private readonly local = new LocalBroadcast();
  private readonly prefix: string;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;

  constructor(config: AppConfig) {
    super();
    if (!config.redisUrl) throw new Error('RedisBroadcast needs REDIS_URL');
    this.prefix = `${config.redisPrefix}broadcast:`;
    this.publisher = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectionName: 'broadcast' });
    // Subscriptions wait for Redis however long it takes, and ioredis renews them after a reconnection.
    this.subscriber = this.publisher.duplicate({
      connectionName: 'broadcast:subscriber',
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
    });
    // Outages are reported by /api/health/redis; ioredis reconnects and subscribes again by itself.
    this.publisher.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel.startsWith(this.prefix)) void this.local.publish(channel.slice(this.prefix.length), message);
    });
  }

  async publish(topic: string, message: string): Promise<void> {
    try {
      await this.publisher.publish(this.prefix + topic, message);
    } catch (error) {
      this.logger.warn(`Broadcast ${topic} not published (${(error as Error).message}): other instances forget on their own`);
    }
  }

  subscribe(topic: string, listener: BroadcastListener): void {
    this.local.subscribe(topic, listener);
    this.subscriber
      .subscribe(this.prefix + topic)
      .catch((error: Error) => this.logger.warn(`Not subscribed to broadcast ${topic}: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([closeRedis(this.subscriber), closeRedis(this.publisher)]);
  }
}
