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
import { ApiTokensService } from '../auth/api-tokens/api-tokens.service';
import { AuthTokenService } from '../auth/auth-token.service';
import { StreamTickets } from '../auth/stream-tickets';
import { clientKeyOf } from './client-address';

/**
 * @nestjs/throttler's guard, counting per user (per client address, see clientKeyOf, without a valid token) across all routes
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
    private readonly tickets: StreamTickets,
    private readonly apiTokens: ApiTokensService,
  ) {
    super(options, storage, reflector);
  }

  /**
   * The user of the bearer token, of the API token (its owner: an integration shares its owner's
   * limit) or of a stream ticket (used or not: a replayed ticket still counts against its user).
   */
  protected override async getTracker(request: FastifyRequest): Promise<string> {
    const { ticket } = request.query as { ticket?: unknown };
    const bearer = this.tokens.bearerOf(request);
    const user =
      bearer !== null && ApiTokensService.isApiToken(bearer)
        ? (await this.apiTokens.find(bearer))?.user_id
        : (this.tokens.claimsOf(request)?.sub ?? (typeof ticket === 'string' ? this.tickets.claimsOf(ticket)?.sub : undefined));
    return user ? `user:${user}` : `ip:${clientKeyOf(request.ip)}`;
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
