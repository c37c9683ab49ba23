import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { Roles } from '../users/roles.decorator';
import { ListTemplatesQuery, SyncResponse, TemplateResponse } from './template.dto';
import { TemplatesService } from './templates.service';

const TemplateId = new PublicIdPipe('tpl', 'Template');

/** The message templates of the WhatsApp Business Account (or of the sandbox channel). */
@ApiTags('Templates')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiOperation({
    summary: 'The template catalogue, most recently changed first',
    description:
      'Synced from the business account (MESSAGING_BUSINESS_ACCOUNT_ID) at start, every MESSAGING_TEMPLATE_SYNC_INTERVAL, on POST /api/v1/templates/sync ' +
      'and when the channel webhook reports a template change; the sandbox channel has its own. Filters: status, language, q (part of the name). ' +
      'parameters says what a send must fill.',
  })
  @ApiOkResponse({ type: PageOf(TemplateResponse, 'TemplatePage') })
  @ApiErrors(400)
  list(@Query() query: ListTemplatesQuery): Promise<Page<TemplateResponse>> {
    return this.templates.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one template' })
  @ApiOkResponse({ type: TemplateResponse })
  @ApiErrors(404)
  get(@Param('id', TemplateId) id: string): Promise<TemplateResponse> {
    return this.templates.get(id);
  }

  @Post('sync')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sync the catalogue from the business account now (admin)',
    description:
      'Reads every page of the account’s templates and answers once they are stored: new and changed ones written, the ones the account no longer ' +
      'has marked DELETED. 422 without MESSAGING_BUSINESS_ACCOUNT_ID (no catalogue); 503 with the channel’s reason when it fails (nothing changed).',
  })
  @ApiOkResponse({ type: SyncResponse })
  @ApiErrors(422, 503)
  sync(): Promise<SyncResponse> {
    return this.templates.syncNow();
  }
}
