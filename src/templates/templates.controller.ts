import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { CurrentUser } from '../users/current-user.decorator';
import { Roles } from '../users/roles.decorator';
import type { UserRow } from '../users/user.entity';
import { ListTemplatesQuery, SyncResponse, TemplateResponse } from './template.dto';
import { TemplatesService } from './templates.service';

const TemplateId = new PublicIdPipe('tpl', 'Template');

/** The message templates of each WhatsApp Business Account an inbox is on (or of the sandbox channel). */
@ApiTags('Templates')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiOperation({
    summary: 'The template catalogues, most recently changed first',
    description:
      'One catalogue per business account an active inbox is on (the default inbox’s is MESSAGING_BUSINESS_ACCOUNT_ID), synced at start, when an ' +
      'inbox is created or changed, every MESSAGING_TEMPLATE_SYNC_INTERVAL, on POST /api/v1/templates/sync and when the channel webhook reports a ' +
      'template change; the sandbox channel has its own. inbox_id keeps to the catalogue that inbox sends from (404 for an inbox the caller does not ' +
      'see); without it, the catalogues of the inboxes the caller sees. Filters: status, language, q (part of the name). parameters says what a ' +
      'send must fill.',
  })
  @ApiOkResponse({ type: PageOf(TemplateResponse, 'TemplatePage') })
  @ApiErrors(400, 404)
  list(@Query() query: ListTemplatesQuery, @CurrentUser() caller: UserRow): Promise<Page<TemplateResponse>> {
    return this.templates.list(query, caller);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one template (404 to an agent when none of its inboxes sends from its catalogue)' })
  @ApiOkResponse({ type: TemplateResponse })
  @ApiErrors(404)
  get(@Param('id', TemplateId) id: string, @CurrentUser() caller: UserRow): Promise<TemplateResponse> {
    return this.templates.get(id, caller);
  }

  @Post('sync')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sync every catalogue from its business account now (admin)',
    description:
      'Reads every page of the templates of each business account an active inbox is on, and answers once they are stored: new and changed ones ' +
      'written, the ones an account no longer has marked DELETED. 422 when no active inbox has a catalogue (no business account); 503 naming each ' +
      'account whose read failed, with the channel’s reason (that catalogue unchanged, the others stored).',
  })
  @ApiOkResponse({ type: SyncResponse })
  @ApiErrors(422, 503)
  sync(): Promise<SyncResponse> {
    return this.templates.syncNow();
  }
}
