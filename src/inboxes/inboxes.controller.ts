import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { InboxResponse } from './inbox.dto';
import { InboxesService } from './inboxes.service';

@ApiTags('Inboxes')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/inboxes')
export class InboxesController {
  constructor(private readonly inboxes: InboxesService) {}

  @Get()
  @ApiOperation({
    summary: 'List the inboxes (the WhatsApp numbers), oldest first: the default one first',
    description: 'Tokens and app secrets are never answered: has_access_token and has_app_secret say whether one is stored.',
  })
  @ApiOkResponse({ type: PageOf(InboxResponse, 'InboxPage') })
  @ApiErrors(400)
  list(@Query() query: PageQuery): Promise<Page<InboxResponse>> {
    return this.inboxes.list(query);
  }
}
