import { ExecutionContext, Module } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import {
  LOGIN_RATE_LIMITED,
  LOGIN_THROTTLER,
  PASSWORD_RESET_RATE_LIMITED,
  PASSWORD_RESET_THROTTLER,
} from '../common/rate-limit.decorators';
import { clientKeyOf } from './client-address';
import { RateLimitGuard } from './rate-limit.guard';
import { InMemoryRateLimitStorage, RedisRateLimitStorage } from './rate-limit.storage';

/**
 * The e-mail address a forgot-password request is about, as its rate-limit key: hashed, so no
 * address is written to Redis. Null when the body has none (validation then refuses it).
 */
function addressKeyOf(request: { body?: unknown }): string | null {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  if (typeof email !== 'string') return null;
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
}

/**
 * Three limits: `default`, RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_MS per user on every
 * route; `login`, per client address (an IPv6 client by its /64), only on routes marked @LoginRateLimit; `password-reset`, per e-mail
 * address, only on routes marked @PasswordResetRateLimit. Counts live in Redis when REDIS_URL is
 * set, in process otherwise.
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
            getTracker: (request: Record<string, unknown>) => `ip:${clientKeyOf(String(request.ip))}`,
            skipIf: (context: ExecutionContext) => Reflect.getMetadata(LOGIN_RATE_LIMITED, context.getHandler()) !== true,
          },
          {
            name: PASSWORD_RESET_THROTTLER,
            ttl: config.passwordResetRateLimitWindowMs,
            limit: config.passwordResetRateLimitMaxRequests,
            getTracker: (request: Record<string, unknown>) => `address:${addressKeyOf(request)}`,
            skipIf: (context: ExecutionContext) =>
              Reflect.getMetadata(PASSWORD_RESET_RATE_LIMITED, context.getHandler()) !== true ||
              addressKeyOf(context.switchToHttp().getRequest<{ body?: unknown }>()) === null,
          },
        ],
        // Every request counts in Redis, so the limit is exact across replicas; the commands of the
        // requests that arrive together go out in one write and come back in one read.
        storage: config.redisUrl
          ? new RedisRateLimitStorage(
              new Redis(config.redisUrl, { keyPrefix: config.redisPrefix, maxRetriesPerRequest: 2, enableAutoPipelining: true }),
            )
          : new InMemoryRateLimitStorage(),
      }),
    }),
  ],
  providers: [RateLimitGuard],
  exports: [RateLimitGuard],
})
export class RateLimitModule {}
