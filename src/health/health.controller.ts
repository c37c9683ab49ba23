import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors';
import { MessagingChannel } from '../messaging/messaging-channel';
import { NoRateLimit } from '../common/rate-limit.decorators';

class HealthResponse {
  @ApiProperty({ example: 'ok' })
  status!: 'ok';
}

class ChannelHealthResponse extends HealthResponse {
  @ApiProperty({ enum: ['whatsapp', 'sandbox'], description: 'sandbox: no MESSAGING_ACCESS_TOKEN, sends are accepted locally' })
  channel!: 'whatsapp' | 'sandbox';
}

/** Probes for Kubernetes: no credentials, never rate limited, 503 with `{error}` when down. */
@ApiTags('Health')
@Public()
@NoRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly channel: MessagingChannel,
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
    try {
      await this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
    } catch {
      throw new ServiceUnavailableException('Database is unreachable');
    }
    return { status: 'ok' };
  }

  @Get('messaging')
  @ApiOperation({ summary: 'The channel connection: the Graph API answers for the phone number id (checked at most every 5 s)' })
  @ApiOkResponse({ type: ChannelHealthResponse })
  @ApiErrors(503)
  async messaging(): Promise<ChannelHealthResponse> {
    const health = await this.channel.health();
    if (!health.ok) throw new ServiceUnavailableException(`Messaging channel is unhealthy: ${health.error}`);
    return { status: 'ok', channel: health.channel };
  }
}
