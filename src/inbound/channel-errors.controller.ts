import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { Roles } from '../users/roles.decorator';
import { ChannelErrorResponse } from './channel-error.dto';
import { InboundService } from './inbound.service';

/** Errors the channel reported about a whole webhook change (`value.errors`), kept for admins. */
@ApiTags('Channel webhook')
@ApiBearerAuth()
@Roles('admin')
@ApiErrors(401, 403, 429)
@Controller('v1/inbound/errors')
export class ChannelErrorsController {
  constructor(private readonly inbound: InboundService) {}

  @Get()
  @ApiOperation({
    summary: 'Errors the channel reported in its webhooks, newest first (admin)',
    description:
      'The top-level `errors` of a webhook change (for example code 131000 "Something went wrong"), which concern no single message: ' +
      'logged when they arrive and kept here. Errors about one message stay on it (a failed status, an unsupported message).',
  })
  @ApiOkResponse({ type: PageOf(ChannelErrorResponse, 'ChannelErrorPage') })
  @ApiErrors(400)
  list(@Query() query: PageQuery): Promise<Page<ChannelErrorResponse>> {
    return this.inbound.listChannelErrors(query);
  }
}
