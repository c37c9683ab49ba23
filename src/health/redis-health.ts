import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { closeRedis } from '../common/redis';
import { AppConfig } from '../config/app-config';

const PING_TIMEOUT_MS = 1_000;

export type RedisState = 'up' | 'down' | 'off';

/**
 * Whether Redis answers, on a connection of its own that never queues commands while Redis is
 * down (so a probe answers at once rather than waiting for a reconnection). `off`: no REDIS_URL,
 * everything runs in process.
 */
@Injectable()
export class RedisHealth implements OnApplicationShutdown {
  private readonly client: Redis | null;

  constructor(config: AppConfig) {
    this.client = config.redisUrl
      ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectionName: 'health', lazyConnect: false })
      : null;
    // Errors are answered by state(); the connection retries by itself.
    this.client?.on('error', () => undefined);
  }

  async state(): Promise<RedisState> {
    if (!this.client) return 'off';
    if (this.client.status !== 'ready') return 'down';
    try {
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref());
      await Promise.race([this.client.ping(), timeout]);
      return 'up';
    } catch {
      return 'down';
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.client) await closeRedis(this.client);
  }
}
