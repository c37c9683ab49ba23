import { Controller, Get, Logger, Req, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { type AuthenticatedRequest, Public } from '../auth/auth.decorators';
import { AuthGuard } from '../auth/auth.guard';
import { ApiErrors } from '../common/api-errors';
import { InboxesService } from '../inboxes/inboxes.service';
import { NoRateLimit } from '../common/rate-limit.decorators';
import { RedisHealth } from './redis-health';

class HealthResponse {
  @ApiProperty({ example: 'ok' })
  status!: 'ok';
}

class ChannelHealthResponse extends HealthResponse {
  @ApiProperty({ enum: ['whatsapp', 'sandbox'], description: 'sandbox: no MESSAGING_ACCESS_TOKEN, sends are accepted locally' })
  channel!: 'whatsapp' | 'sandbox';
}

class RedisHealthResponse extends HealthResponse {
  @ApiProperty({ enum: ['up', 'off'], description: 'off: no REDIS_URL, queues, rate limits and live events run in process' })
  redis!: 'up' | 'off';
}

class ReadinessResponse extends HealthResponse {
  @ApiProperty({ enum: ['up'] })
  database!: 'up';

  @ApiProperty({
    enum: ['up', 'down', 'off'],
    description: 'down: the instance still serves, with rate limits counted per instance and jobs and live events waiting in the database',
  })
  redis!: 'up' | 'down' | 'off';
}

const REDIS_DOWN =
  'Redis is unreachable: rate limits are counted per instance, and sends, webhook deliveries and live events wait in the database until it is back';

/** Probes for Kubernetes: no credentials, never rate limited, 503 with `{error}` when down. */
@ApiTags('Health')
@Public()
@NoRateLimit()
@Controller('health')
export class HealthController {
  private readonly logger = new Logger(HealthController.name);

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly inboxes: InboxesService,
    private readonly redis: RedisHealth,
    private readonly guard: AuthGuard,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Liveness: 200 while the process serves' })
  @ApiOkResponse({ type: HealthResponse })
  live(): HealthResponse {
    return { status: 'ok' };
  }

  @Get('db')
  @ApiOperation({ summary: 'Readiness of the database: a real query within 2 s' })
  @ApiOkResponse({ type: HealthResponse })
  @ApiErrors(503)
  async db(): Promise<HealthResponse> {
    await this.assertDatabase();
    return { status: 'ok' };
  }

  @Get('redis')
  @ApiOperation({
    summary: 'Redis: answers PING within 1 s (200 with redis "off" when REDIS_URL is unset)',
    description: 'A 503 says what runs degraded meanwhile; the API and the channel webhook keep answering.',
  })
  @ApiOkResponse({ type: RedisHealthResponse })
  @ApiErrors(503)
  async redisHealth(): Promise<RedisHealthResponse> {
    const state = await this.redis.state();
    if (state === 'down') throw new ServiceUnavailableException(REDIS_DOWN);
    return { status: 'ok', redis: state };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: 200 while the instance can serve (the database answers); says whether Redis does',
    description:
      'The instance serves without Redis (rate limits per instance, jobs and live events wait in the database), so Redis being down is reported here, not a 503: taking every replica out of the load balancer would take the API down with it.',
  })
  @ApiOkResponse({ type: ReadinessResponse })
  @ApiErrors(503)
  async ready(): Promise<ReadinessResponse> {
    const [, redis] = await Promise.all([this.assertDatabase(), this.redis.state()]);
    return { status: 'ok', database: 'up', redis };
  }

  @Get('messaging')
  @ApiOperation({
    summary: 'The channel connection: the Graph API answers for the phone number id of every active inbox (checked at most every 5 s)',
    description:
      "A 503 says why only to an admin's bearer token (the Graph API's own words may name the account); anyone else reads that the channel is unhealthy, and the reason is in the log.",
  })
  @ApiOkResponse({ type: ChannelHealthResponse })
  @ApiErrors(503)
  async messaging(@Req() request: AuthenticatedRequest): Promise<ChannelHealthResponse> {
    const { channel, failing } = await this.inboxes.failingChannels();
    if (failing.length > 0) {
      const reason = failing.map(({ inbox, error }) => `${inbox}${error}`).join('; ');
      this.logger.warn(`Messaging channel is unhealthy: ${reason}`);
      if (await this.guard.isAdmin(request)) throw new ServiceUnavailableException(`Messaging channel is unhealthy: ${reason}`);
      throw new ServiceUnavailableException(
        "Messaging channel is unhealthy; the reason is in the service's log, or ask with an admin's token",
      );
    }
    return { status: 'ok', channel };
  }

  private async assertDatabase(): Promise<void> {
    try {
      await this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
    } catch {
      throw new ServiceUnavailableException('Database is unreachable');
    }
  }
}
