import { ExecutionContext, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import { LOGIN_RATE_LIMITED, LOGIN_THROTTLER } from '../common/rate-limit.decorators';
import { RateLimitGuard } from './rate-limit.guard';
import { InMemoryRateLimitStorage, RedisRateLimitStorage } from './rate-limit.storage';

/**
 * Two limits: `default`, RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_MS per user on every route,
 * and `login`, per IP, only on routes marked @LoginRateLimit. Counts live in Redis when REDIS_URL
 * is set, in process otherwise.
 */
@Module({
  imports: [
    AuthModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        throttlers: [
          { name: 'default', ttl: config.rateLimitWindowMs, limit: config.rateLimitMaxRequests },
          {
            name: LOGIN_THROTTLER,
            ttl: config.loginRateLimitWindowMs,
            limit: config.loginRateLimitMaxRequests,
            getTracker: (request: Record<string, unknown>) => `ip:${String(request.ip)}`,
            skipIf: (context: ExecutionContext) => Reflect.getMetadata(LOGIN_RATE_LIMITED, context.getHandler()) !== true,
          },
        ],
        storage: config.redisUrl
          ? new RedisRateLimitStorage(new Redis(config.redisUrl, { keyPrefix: config.redisPrefix, maxRetriesPerRequest: 2 }))
          : new InMemoryRateLimitStorage(),
      }),
    }),
  ],
  providers: [RateLimitGuard],
  exports: [RateLimitGuard],
})
export class RateLimitModule {}
