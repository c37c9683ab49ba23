import { BadRequestException, Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentUser } from '../users/current-user.decorator';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import type { UserRow } from '../users/user.entity';
import {
  ConversationCountsQuery,
  ConversationCountsResponse,
  ConversationResponse,
  ListConversationsQuery,
  StartConversationDto,
  UpdateConversationDto,
} from './conversation.dto';
import { ConversationAccessGuard } from './conversation-access.guard';
import { ConversationsService } from './conversations.service';
import { AddNoteDto, MessageResponse, SendMessageDto } from './message.dto';
import { MessagesService } from './messages.service';
import { ReadsService } from './reads.service';
import { TypingService } from './typing.service';
import { NotesService } from './notes.service';

const ConversationId = new PublicIdPipe('conv', 'Conversation');
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

@ApiTags('Conversations')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@UseGuards(ConversationAccessGuard)
@Controller('v1/conversations')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
    private readonly reads: ReadsService,
    private readonly notes: NotesService,
    private readonly typing: TypingService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List conversations, most recent activity first',
    description:
      "Filters: status (`open` leaves out the snoozed ones), assigned_to (me, none or a user id), q (part of the customer name or phone), label (a label name, case-insensitive), unread (`true`: with messages the caller has not read). Each conversation carries its customer, labels, snoozed_until, last_message (the preview, notes left out), window_expires_at and the caller's unread_count.",
  })
  @ApiOkResponse({ type: PageOf(ConversationResponse, 'ConversationPage') })
  @ApiErrors(400, 404)
  list(@Query() query: ListConversationsQuery, @CurrentUser() caller: UserRow): Promise<Page<ConversationResponse>> {
    return this.conversations.list(query, caller);
  }

  @Post()
  @ApiOperation({
    summary: 'Open a conversation with a contact: 201 with a new one, 200 with the one they have',
    description:
      'For writing first, to a contact who may never have written: the conversation is open, and until the customer writes only templates can be sent (the 24-hour window). ' +
      'A contact has one conversation per inbox: asked again, this answers it (200) as it is. Event conversation.created for a new one. ' +
      'A contact_id that names no contact, or an inbox_id that names no active inbox, is a 422.',
  })
  @ApiCreatedResponse({ type: ConversationResponse })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(400, 422)
  async start(
    @Body() dto: StartConversationDto,
    @CurrentUser() actor: UserRow,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConversationResponse> {
    const { conversation, created } = await this.conversations.start(dto.contact_id, dto.inbox_id, actor);
    void reply.status(created ? 201 : 200);
    return conversation;
  }

  @Get('counts')
  @ApiOperation({
    summary: "The counts of the inbox's tabs, as the caller sees them",
    description:
      '`open`, `snoozed` and `closed` by status; `mine` (assigned to the caller), `unassigned` and `unread` (with messages the caller has not read) among the open ones.',
  })
  @ApiOkResponse({ type: ConversationCountsResponse })
  @ApiErrors(400, 404)
  counts(@Query() query: ConversationCountsQuery, @CurrentUser() caller: UserRow): Promise<ConversationCountsResponse> {
    return this.conversations.counts(caller, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one conversation' })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(404)
  get(@Param('id', ConversationId) id: string, @CurrentUser() caller: UserRow): Promise<ConversationResponse> {
    return this.conversations.get(id, caller);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Close, reopen, snooze, assign or unassign, and set the labels',
    description: [
      'status, assigned_to and labels are each optional, at least one present; assigned_to null unassigns.',
      '',
      'Snooze: `{"status":"snoozed","snoozed_until":"<future time>"}` hides the conversation from `status=open` until that time or until the customer writes, whichever comes first; then it is `open` again (event `conversation.reopened`). snoozed_until without status snoozed, missing with it, or not in the future is a 400. Closing or reopening a snoozed conversation clears snoozed_until.',
      '',
      'Labels: `{"labels":["vip","billing"]}` (names, case-insensitive) replaces the set; a name that is no label is a 422.',
      '',
      'Event `conversation.updated` `{conversation, changes}` records a change of labels or snooze, `changes` holding `{from, to}` per field that changed: `labels`, and when snoozing `status` and `snoozed_until`.',
    ].join('\n'),
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
      "Moves the caller's read marker to the newest message (never back) and answers the conversation (`unread_count: 0`). Also tells the customer's phone " +
      'that their newest message was read (blue ticks): once per message, whoever reads it, sent after the answer with retries; ' +
      'MESSAGING_READ_RECEIPTS=false turns that off.',
  })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(404)
  markRead(@Param('id', ConversationId) id: string, @CurrentUser() caller: UserRow): Promise<ConversationResponse> {
    return this.reads.markRead(id, caller);
  }

  @Post(':id/typing')
  @ApiOperation({
    summary: 'Show "typing…" to the customer while you write',
    description:
      "202 when the channel is asked to show it (the read status of the customer's newest message with a typing indicator: the phone shows " +
      '"typing…" for up to 25 seconds, or until the reply, and the message as read). 204 when nothing was sent: within 20 seconds of the ' +
      'last time for this conversation (whoever asked), with MESSAGING_READ_RECEIPTS=false (the indicator is a read receipt), outside the 24-hour window, to a blocked customer, through a disabled inbox, or ' +
      'before the customer wrote anything the channel knows. Sent after the answer and not retried; the console calls it while an agent types.',
  })
  @ApiResponse({ status: 202, description: 'Shown to the customer' })
  @ApiResponse({ status: 204, description: 'Nothing was sent' })
  @ApiErrors(404)
  async showTyping(@Param('id', ConversationId) id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    void reply.status((await this.typing.show(id)) ? 202 : 204);
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

  @Post(':id/notes')
  @ApiOperation({
    summary: 'Add a private note to the thread',
    description:
      'Answers 201 with a message of `type: "note"`, `direction: "internal"`, `sent_by` the caller. Notes appear in the thread and are never sent to the customer; they do not move the conversation in the list, reopen it, or touch the 24-hour window. Each mentioned user but the author gets a notification of type `mention`; an id that names no user is a 422. Event `note.created` `{message, conversation}`.',
  })
  @ApiCreatedResponse({ type: MessageResponse })
  @ApiErrors(400, 404, 422)
  addNote(@Param('id', ConversationId) id: string, @Body() dto: AddNoteDto, @CurrentUser() author: UserRow): Promise<MessageResponse> {
    return this.notes.add(id, dto, author);
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
