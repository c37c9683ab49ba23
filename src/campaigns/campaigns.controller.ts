import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, StreamableFile } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { CurrentUser } from '../users/current-user.decorator';
import { Roles } from '../users/roles.decorator';
import type { UserRow } from '../users/user.entity';
import {
  CampaignPreviewResponse,
  CampaignRecipientResponse,
  CampaignResponse,
  CreateCampaignDto,
  ListRecipientsQuery,
  PreviewCampaignDto,
  ScheduleCampaignDto,
  UpdateCampaignDto,
} from './campaign.dto';
import { CampaignsService } from './campaigns.service';

const CampaignId = new PublicIdPipe('cmp', 'Campaign');

@ApiTags('Campaigns')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Roles('admin')
@Controller('v1/campaigns')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get()
  @ApiOperation({ summary: 'List campaigns, newest first, with their totals (admin)' })
  @ApiOkResponse({ type: PageOf(CampaignResponse, 'CampaignPage') })
  @ApiErrors(400)
  list(@Query() query: PageQuery): Promise<Page<CampaignResponse>> {
    return this.campaigns.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a campaign, as a draft (admin)',
    description:
      'The template is checked against the inbox’s catalogue like any template send (422). `schedule` starts it; until then it ' +
      'can be changed. Its audience is resolved into the recipient list when it starts.',
  })
  @ApiCreatedResponse({ type: CampaignResponse })
  @ApiErrors(400, 422)
  create(@Body() dto: CreateCampaignDto, @CurrentUser() actor: UserRow): Promise<CampaignResponse> {
    return this.campaigns.create(dto, actor);
  }

  @Post('preview')
  @HttpCode(200)
  @ApiOperation({
    summary: 'The audience’s size and the message its first three contacts would read, before saving (admin)',
    description:
      'Counts the contacts the audience names now (and those of them a campaign would skip), and fills the template for three of them.',
  })
  @ApiOkResponse({ type: CampaignPreviewResponse })
  @ApiErrors(400, 422)
  preview(@Body() dto: PreviewCampaignDto): Promise<CampaignPreviewResponse> {
    return this.campaigns.preview(dto);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a campaign with its totals (admin)',
    description: 'The totals are read from a ledger folded every 2 s, never counted over the list.',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404)
  get(@Param('id', CampaignId) id: string): Promise<CampaignResponse> {
    return this.campaigns.get(id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change a campaign (admin)',
    description:
      'The name and `rate_per_second` until it ends; the inbox, template, audience and `scheduled_at` before it starts (else 409).',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(400, 404, 409, 422)
  update(@Param('id', CampaignId) id: string, @Body() dto: UpdateCampaignDto): Promise<CampaignResponse> {
    return this.campaigns.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a campaign and its recipient list (admin)',
    description:
      'A draft, completed or cancelled one; one scheduled, running or paused is a 409 (cancel it first). The messages it sent stay.',
  })
  @ApiNoContentResponse()
  @ApiErrors(404, 409)
  remove(@Param('id', CampaignId) id: string): Promise<void> {
    return this.campaigns.remove(id);
  }

  @Post(':id/schedule')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Schedule a draft (admin)',
    description:
      'It starts at `scheduled_at` (given here or on the campaign), at once without one. The body may be left out. A template or inbox that cannot send is a 422.',
  })
  @ApiBody({ type: ScheduleCampaignDto, required: false })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(400, 404, 409, 422)
  schedule(@Param('id', CampaignId) id: string, @Body() dto: ScheduleCampaignDto): Promise<CampaignResponse> {
    return this.campaigns.schedule(id, dto);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause a scheduled or running campaign (admin)',
    description: 'No new message is queued; one the channel is being sent goes.',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404, 409)
  pause(@Param('id', CampaignId) id: string): Promise<CampaignResponse> {
    return this.campaigns.pause(id);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resume a paused campaign where it stopped (admin)',
    description: 'A template or inbox that cannot send is a 422.',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404, 409, 422)
  resume(@Param('id', CampaignId) id: string): Promise<CampaignResponse> {
    return this.campaigns.resume(id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a campaign for good (admin)', description: 'The recipients not sent to yet are skipped.' })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404, 409)
  cancel(@Param('id', CampaignId) id: string): Promise<CampaignResponse> {
    return this.campaigns.cancel(id);
  }

  @Get(':id/recipients')
  @ApiOperation({ summary: "A campaign's recipients in send order, each with its status, message and error (admin)" })
  @ApiOkResponse({ type: PageOf(CampaignRecipientResponse, 'CampaignRecipientPage') })
  @ApiErrors(400, 404)
  recipients(@Param('id', CampaignId) id: string, @Query() query: ListRecipientsQuery): Promise<Page<CampaignRecipientResponse>> {
    return this.campaigns.recipients(id, query);
  }

  @Get(':id/recipients.csv')
  @ApiOperation({
    summary: "A campaign's recipients as CSV, streamed (admin)",
    description: 'The `status` filter applies; `limit` and `cursor` do not.',
  })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiErrors(400, 404)
  async recipientsCsv(@Param('id', CampaignId) id: string, @Query() query: ListRecipientsQuery): Promise<StreamableFile> {
    return new StreamableFile(await this.campaigns.recipientsCsv(id, query.status), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="recipients.csv"',
    });
  }
}
