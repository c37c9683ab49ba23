import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors';
import { NoRateLimit } from '../rate-limit/rate-limit.decorators';

class HealthResponse {
  @ApiProperty({ example: 'ok' })
  status!: 'ok';
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
}
