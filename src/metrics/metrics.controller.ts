import { Controller, Get, Headers, NotFoundException, Res, UnauthorizedException } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Public } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors';
import { NoRateLimit } from '../common/rate-limit.decorators';
import { AppConfig } from '../config/app-config';
import { Metrics } from './metrics';

/** Compared as digests, so the comparison takes the same time whatever the token's length. */
const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics on the main port (outside /api: Prometheus scrapes a fixed path), for whoever
 * holds METRICS_TOKEN; not public, as the contract says. Off (404) without the token; with
 * METRICS_PORT the metrics are served there instead (MetricsServer).
 */
@ApiTags('Operations')
@Controller('metrics')
export class MetricsController {
  private readonly expected: Buffer | null;

  constructor(
    private readonly metrics: Metrics,
    config: AppConfig,
  ) {
    this.expected = config.metricsToken === null ? null : digest(`Bearer ${config.metricsToken}`);
  }

  @Get()
  @Public()
  @NoRateLimit()
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Prometheus metrics (not public)',
    description:
      'The Prometheus text format, with `Authorization: Bearer <METRICS_TOKEN>`; 404 when METRICS_TOKEN is unset. With METRICS_PORT the same is served on that port, without a token.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Every series listed in the README ("Metrics")' })
  @ApiErrors(401, 404)
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (this.expected === null) throw new NotFoundException('Metrics are off on this port (set METRICS_TOKEN, or METRICS_PORT)');
    if (!authorization || !timingSafeEqual(digest(authorization), this.expected))
      throw new UnauthorizedException('Bearer METRICS_TOKEN required');
    void reply.type(this.metrics.contentType);
    return this.metrics.scrape();
  }
}
