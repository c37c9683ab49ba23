import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import Redis from 'ioredis';
import { closeRedis } from '../common/redis';

/**
 * Fixed-window counters: one number per key and window, however many hits. (The throttler's
 * default storage keeps one timestamp per hit, which grows with the limit and costs throughput.)
 */
function record(totalHits: number, msToReset: number, limit: number): ThrottlerStorageRecord {
  const secondsToReset = Math.max(1, Math.ceil(msToReset / 1000));
  return { totalHits, timeToExpire: secondsToReset, isBlocked: totalHits > limit, timeToBlockExpire: secondsToReset };
}

/** Counts in this process; right for one instance (the embedded default). */
export class InMemoryRateLimitStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  private readonly sweeper = setInterval(() => this.sweep(), 60_000).unref();

  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { hits: 0, resetAt: now + ttl };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return Promise.resolve(record(window.hits, window.resetAt - now, limit));
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

/** INCR and set the expiry of a new window in one round trip, atomically. */
const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}`;

/**
 * Counts in Redis, so every instance behind the load balancer shares one limit per user. While
 * Redis is unreachable the limits are counted in this process instead (each instance then allows
 * up to the limit on its own), said once in the log and by `degraded` (GET /api/health/redis):
 * a rate limiter must not take the API down with it.
 */
export class RedisRateLimitStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly fallback = new InMemoryRateLimitStorage();
  private degradedSince: Date | null = null;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
  }

  /** Since when limits are counted per instance because Redis is unreachable; null while shared. */
  get degraded(): Date | null {
    return this.degradedSince;
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    // Not connected: count here at once rather than wait for ioredis's retries on every request.
    if (this.redis.status === 'ready') {
      try {
        const [hits, msToReset] = await (
          this.redis as Redis & { rateLimitIncrement(key: string, ttl: number): Promise<[number, number]> }
        ).rateLimitIncrement(key, ttl);
        if (this.degradedSince) {
          this.logger.log('Redis is back: rate limits are shared by every instance again');
          this.degradedSince = null;
        }
        return record(hits, msToReset, limit);
      } catch (error) {
        this.degrade((error as Error).message);
      }
    } else {
      this.degrade(`the connection is ${this.redis.status}`);
    }
    return this.fallback.increment(key, ttl, limit);
  }

  async onApplicationShutdown(): Promise<void> {
    this.fallback.onApplicationShutdown();
    await closeRedis(this.redis);
  }

  private degrade(reason: string): void {
    if (this.degradedSince) return;
    this.degradedSince = new Date();
    this.logger.warn(`Redis is unreachable (${reason}): rate limits are counted per instance until it is back`);
  }
}
