import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { CurrentUser } from '../users/current-user.decorator';
import { Roles } from '../users/roles.decorator';
import type { UserRow } from '../users/user.entity';
import {
  ChannelWebhookResponse,
  CreateInboxDto,
  InboxConnectionResponse,
  InboxMembersDto,
  InboxResponse,
  UpdateInboxDto,
} from './inbox.dto';
import { InboxesService } from './inboxes.service';

const InboxId = new PublicIdPipe('inb', 'Inbox');

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
  list(@Query() query: PageQuery, @CurrentUser() caller: UserRow): Promise<Page<InboxResponse>> {
    return this.inboxes.list(query, caller);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({
    summary: 'Add a WhatsApp number as an inbox (admin)',
    description:
      'The token and app secret are sealed with ENCRYPTION_KEY and never answered. Webhooks kept for this number as dead letters ' +
      '(reason "unknown phone number") are replayed into it at once. 409 when another inbox has the phone_number_id.',
  })
  @ApiCreatedResponse({ type: InboxResponse })
  @ApiErrors(400, 409)
  create(@Body() dto: CreateInboxDto): Promise<InboxResponse> {
    return this.inboxes.create(dto);
  }

  @Get('channel-webhook')
  @Roles('admin')
  @ApiOperation({
    summary: 'What to paste into Meta’s dashboard: the callback URL, the verify token and the fields (admin)',
    description: 'One webhook for every number of the install; each change is routed to its inbox by the number it names.',
  })
  @ApiOkResponse({ type: ChannelWebhookResponse })
  channelWebhook(): ChannelWebhookResponse {
    return this.inboxes.channelWebhook();
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one inbox (404 to an agent who does not work it)' })
  @ApiOkResponse({ type: InboxResponse })
  @ApiErrors(404)
  get(@Param('id', InboxId) id: string, @CurrentUser() caller: UserRow): Promise<InboxResponse> {
    return this.inboxes.get(id, caller);
  }

  @Get(':id/members')
  @Roles('admin')
  @ApiOperation({ summary: "The inbox's users (admin)" })
  @ApiOkResponse({ type: InboxMembersDto })
  @ApiErrors(404)
  members(@Param('id', InboxId) id: string): Promise<InboxMembersDto> {
    return this.inboxes.members(id);
  }

  @Put(':id/members')
  @Roles('admin')
  @ApiOperation({
    summary: "Replace the inbox's users (admin)",
    description:
      'An agent sees, lists, counts, searches and streams only the conversations of the inboxes they belong to (404 elsewhere); admins see every inbox. ' +
      'The streams of those who joined or left reconnect with their new inboxes. A user id that names no user is a 422.',
  })
  @ApiOkResponse({ type: InboxMembersDto })
  @ApiErrors(400, 404, 422)
  setMembers(@Param('id', InboxId) id: string, @Body() dto: InboxMembersDto): Promise<InboxMembersDto> {
    return this.inboxes.setMembers(id, dto);
  }

  @Patch(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Rename an inbox, change its number, token or app secret, or disable it (admin)',
    description:
      "The default inbox's number, business account, token, app secret and status are its MESSAGING_* settings: 422 naming them. " +
      '409 when another inbox has the phone_number_id. Enabling an inbox replays the webhooks kept while it was disabled.',
  })
  @ApiOkResponse({ type: InboxResponse })
  @ApiErrors(400, 404, 409, 422)
  update(@Param('id', InboxId) id: string, @Body() dto: UpdateInboxDto): Promise<InboxResponse> {
    return this.inboxes.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an inbox without conversations (admin); 409 for one with conversations (disable it) or the default one',
  })
  @ApiNoContentResponse()
  @ApiErrors(404, 409)
  remove(@Param('id', InboxId) id: string): Promise<void> {
    return this.inboxes.remove(id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({
    summary: "Test the inbox's connection: the channel asked about its number with its token, now (admin)",
    description: 'ok false carries the channel’s reason. The number as the channel shows it is kept as display_phone_number.',
  })
  @ApiOkResponse({ type: InboxConnectionResponse })
  @ApiErrors(404)
  test(@Param('id', InboxId) id: string): Promise<InboxConnectionResponse> {
    return this.inboxes.testConnection(id);
  }
}
