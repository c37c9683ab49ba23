import { BadRequestException, Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentUser } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import type { UserRow } from '../users/user.entity';
import { ConversationResponse, ListConversationsQuery, UpdateConversationDto } from './conversation.dto';
import { ConversationsService } from './conversations.service';
import { MessageResponse, SendMessageDto } from './message.dto';
import { MessagesService } from './messages.service';
import { ReadsService } from './reads.service';

const ConversationId = new PublicIdPipe('conv', 'Conversation');
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

@ApiTags('Conversations')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/conversations')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
    private readonly reads: ReadsService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List conversations, most recent activity first',
    description: 'Filters: status, assigned_to (me, none or a user id), q (part of the customer name or phone).',
  })
  @ApiOkResponse({ type: PageOf(ConversationResponse, 'ConversationPage') })
  @ApiErrors(400)
  list(@Query() query: ListConversationsQuery, @CurrentUser() caller: UserRow): Promise<Page<ConversationResponse>> {
    return this.conversations.list(query, caller);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one conversation' })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(404)
  get(@Param('id', ConversationId) id: string): Promise<ConversationResponse> {
    return this.conversations.get(id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Close, reopen, assign or unassign',
    description: 'status and assigned_to are each optional, at least one present; assigned_to null unassigns.',
  })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(400, 404, 422)
  update(
    @Param('id', ConversationId) id: string,
    @Body() dto: UpdateConversationDto,
    @CurrentUser() actor: UserRow,
  ): Promise<ConversationResponse> {
    return this.conversations.update(id, dto, actor);
  }

  @Post(':id/read')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mark the conversation read by the caller',
    description:
      "Moves the caller's read marker to the newest message (never back) and answers the conversation. Also tells the customer's phone " +
      'that their newest message was read (blue ticks): once per message, whoever reads it, sent after the answer with retries; ' +
      'MESSAGING_READ_RECEIPTS=false turns that off.',
  })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(404)
  markRead(@Param('id', ConversationId) id: string, @CurrentUser() caller: UserRow): Promise<ConversationResponse> {
    return this.reads.markRead(id, caller);
  }

  @Get(':id/messages')
  @ApiOperation({
    summary: 'The thread of a conversation, newest first',
    description: 'Each message with the message it quotes (reply_to) and its reactions; reactions are not messages of their own.',
  })
  @ApiOkResponse({ type: PageOf(MessageResponse, 'MessagePage') })
  @ApiErrors(400, 404)
  listMessages(@Param('id', ConversationId) id: string, @Query() query: PageQuery): Promise<Page<MessageResponse>> {
    return this.messages.list(id, query);
  }

  @Post(':id/messages')
  @ApiOperation({
    summary: 'Send a message to the customer, or react to one of theirs',
    description:
      'Answers 201 with the message `queued`; the channel send happens after, with retries, and moves it to sent, delivered, read, played or failed. ' +
      'Free-form types are refused (422) more than 24 hours after the customer last wrote; templates are always allowed. ' +
      "`reply_to` quotes a message of this conversation (sent as the channel's context). " +
      '`{"type":"reaction","reaction":{"message_id":"msg_…","emoji":"👍"}}` reacts to a customer\'s message of the last 30 days ' +
      '(`"emoji":""` removes the reaction) and answers 201 with the message reacted to and its reactions; the reaction is sent to the channel after the answer.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'A retried request with the same key answers the first result and sends nothing again',
  })
  @ApiCreatedResponse({ type: MessageResponse })
  @ApiErrors(400, 404, 409, 422)
  async send(
    @Param('id', ConversationId) id: string,
    @Body() dto: SendMessageDto,
    @CurrentUser() actor: UserRow,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MessageResponse> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey))
      throw new BadRequestException('Idempotency-Key must be 1 to 255 printable characters');
    const { message, replayed } = await this.messages.send(id, dto, actor, idempotencyKey ?? null);
    if (replayed) void reply.header('idempotent-replayed', 'true');
    return message;
  }
}
