import { Controller, Get, Headers, HttpCode, HttpException, Post, Query, type RawBodyRequest, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors';
import { NoRateLimit } from '../common/rate-limit.decorators';
import { Metrics } from '../metrics/metrics';
import { InboundService } from './inbound.service';

class WebhookAccepted {
  @ApiProperty({ description: 'Messages stored by this delivery (a repeated one is not stored twice)' })
  messages!: number;

  @ApiProperty({ description: 'Status updates in this delivery' })
  statuses!: number;
}

/** Where the WhatsApp Cloud API delivers customer messages and delivery statuses. */
@ApiTags('Channel webhook')
@Public()
@NoRateLimit()
@Controller('webhooks/messaging')
export class InboundController {
  constructor(
    private readonly inbound: InboundService,
    private readonly metrics: Metrics,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Verification handshake: answers hub.challenge as text when hub.verify_token matches MESSAGING_WEBHOOK_VERIFY_TOKEN',
  })
  @ApiQuery({ name: 'hub.mode', example: 'subscribe' })
  @ApiQuery({ name: 'hub.verify_token' })
  @ApiQuery({ name: 'hub.challenge' })
  @ApiOkResponse({ description: 'The challenge, as text/plain', schema: { type: 'string' } })
  @ApiErrors(403)
  verify(
    @Query('hub.mode') mode: string | undefined,
    @Query('hub.verify_token') token: string | undefined,
    @Query('hub.challenge') challenge: string | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const answer = this.inbound.verifySubscription(mode, token, challenge);
    void reply.type('text/plain').send(answer);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Customer messages, statuses and template changes from the channel',
    description:
      'With MESSAGING_APP_SECRET set, X-Hub-Signature-256 must be the HMAC-SHA256 of the raw body. A 200 means every message is committed, ' +
      'or that the body could not be stored for what it holds and was kept raw as a dead letter (GET /api/v1/inbound/failed) for an admin to replay; ' +
      'the same channel message id is stored once; characters PostgreSQL cannot store (NUL, unpaired surrogates) are stored as U+FFFD; ' +
      'changes of field message_template_status_update and template_category_update set the template’s status or category at once and ask for a ' +
      'catalogue sync; shapes the service does not know are logged and acknowledged. 503 only when the database is down, so the channel retries.',
  })
  @ApiBody({ description: 'The WhatsApp Cloud API webhook payload (`object`, `entry[].changes[].value`)', schema: { type: 'object' } })
  @ApiOkResponse({ type: WebhookAccepted })
  @ApiErrors(400, 401, 413, 415, 503)
  async receive(
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Headers('x-hub-signature-256') signature: string | undefined,
  ): Promise<WebhookAccepted> {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      // Read from the request, not through @Body(): the validation pipe refuses characters PostgreSQL
      // cannot store, and a refused channel body is redelivered for days; ingest replaces them instead.
      const accepted = await this.inbound.ingest(request.rawBody, signature, request.body);
      this.metrics.channelWebhookDuration.observe({ outcome: 'processed' }, seconds());
      return accepted;
    } catch (error) {
      const refused = error instanceof HttpException && error.getStatus() < 500;
      this.metrics.channelWebhookDuration.observe({ outcome: refused ? 'refused' : 'failed' }, seconds());
      throw error;
    }
  }
}
