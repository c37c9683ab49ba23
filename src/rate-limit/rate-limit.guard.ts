import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerException,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { ThrottlerRequest } from '@nestjs/throttler/dist/throttler.guard.interface';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthTokenService } from '../auth/auth-token.service';

/**
 * @nestjs/throttler's guard, counting per user (per IP without a valid token) across all routes
 * rather than per route, and answering with the headers of the contract: RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset and, on 429, Retry-After (seconds).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly tokens: AuthTokenService,
  ) {
    super(options, storage, reflector);
  }

  protected override getTracker(request: FastifyRequest): Promise<string> {
    const claims = this.tokens.claimsOf(request);
    return Promise.resolve(claims ? `user:${claims.sub}` : `ip:${request.ip}`);
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `rate:${throttlerName}:${tracker}`;
  }

  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    blockDuration,
    getTracker,
    generateKey,
  }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const key = generateKey(context, await getTracker(request, context), throttler.name ?? 'default');
    const { totalHits, timeToExpire, isBlocked } = await this.storageService.increment(
      key,
      ttl,
      limit,
      blockDuration,
      throttler.name ?? 'default',
    );
    void reply.header('RateLimit-Limit', limit);
    void reply.header('RateLimit-Remaining', Math.max(0, limit - totalHits));
    void reply.header('RateLimit-Reset', timeToExpire);
    if (isBlocked) {
      void reply.header('Retry-After', timeToExpire);
      throw new ThrottlerException();
    }
    return true;
  }
}
