import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { Roles } from '../users/roles.decorator';
import { DeadLetterResponse } from './dead-letter.dto';
import { InboundService } from './inbound.service';

const DeadLetterId = new PublicIdPipe('ibf', 'Dead letter');

/** Channel webhook bodies that could not be stored, kept raw for admins to look at and replay. */
@ApiTags('Channel webhook')
@ApiBearerAuth()
@Roles('admin')
@ApiErrors(401, 403, 429)
@Controller('v1/inbound/failed')
export class DeadLettersController {
  constructor(private readonly inbound: InboundService) {}

  @Get()
  @ApiOperation({
    summary: 'Channel webhook bodies that could not be stored, newest first (admin)',
    description:
      'A body that fails to store for any reason but the database being down is kept here as received and acknowledged to the channel with 200. ' +
      'Replayed ones stay listed, with replayed_at.',
  })
  @ApiOkResponse({ type: PageOf(DeadLetterResponse, 'DeadLetterPage') })
  @ApiErrors(400)
  list(@Query() query: PageQuery): Promise<Page<DeadLetterResponse>> {
    return this.inbound.listDeadLetters(query);
  }

  @Post(':id/replay')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Store a kept body again, now (admin)',
    description:
      'Runs the raw body through the same ingest as the webhook and marks it replayed. 409 when it was replayed already; ' +
      '422 with the reason when storing fails again (kept as replay_error); 503 when the database is down.',
  })
  @ApiOkResponse({ type: DeadLetterResponse })
  @ApiErrors(404, 409, 422, 503)
  replay(@Param('id', DeadLetterId) id: string): Promise<DeadLetterResponse> {
    return this.inbound.replay(id);
  }
}
