import { Controller, Get, Headers, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentAccess, AllowStreamTicket } from '../auth/auth.decorators';
import { CurrentUser } from '../users/current-user.decorator';
import { StreamTickets } from '../auth/stream-tickets';
import type { Access } from '../auth/access';
import { ApiErrors } from '../common/api-errors';
import type { UserRow } from '../users/user.entity';
import { requestedInboxOf } from '../users/requested-inbox';
import { EventStreamClients } from './event-stream-clients.service';
import { StreamTicketResponse } from './stream-ticket.dto';

const FRAME_EXAMPLE = [
  'id: evt_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b',
  'event: conversation.assigned',
  'data: {"id":"evt_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b","type":"conversation.assigned","created_at":"2025-01-01T12:00:00.000Z","data":{…}}',
  '',
  ': keep-alive',
  '',
  '',
].join('\n');

/** The header wins over the query parameter; an empty value means none. */
function lastEventIdOf(header: string | undefined, query: string | undefined): string | null {
  for (const value of [header, query]) if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return null;
}

@ApiTags('Events')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/events')
export class EventsStreamController {
  constructor(
    private readonly clients: EventStreamClients,
    private readonly tickets: StreamTickets,
  ) {}

  @Post('stream-tickets')
  @ApiOperation({
    summary: 'A one-time ticket that opens the event stream, for clients that cannot send headers (EventSource)',
    description:
      'Valid a minute (never past the access token it was asked with) and for one connection: ask for a new one each time the stream is opened. The stream it opens ends when the access token expires or is revoked.',
  })
  @ApiCreatedResponse({ type: StreamTicketResponse })
  issueTicket(@CurrentAccess() access: Access): StreamTicketResponse {
    return this.tickets.issue(access);
  }

  @Get('stream')
  @AllowStreamTicket()
  @ApiOperation({
    summary: 'The live event stream (Server-Sent Events), for any logged-in user',
    description: [
      'Every event the service records, as it happens, one frame each: `id:` the event id, `event:` its type, `data:` the event envelope (`{"id", "type", "created_at", "data"}`) as JSON on one line.',
      "Also the caller's own `notification.created` events (`data`: `{\"notification\": {…}}`), and never another user's. Each type's `data` is documented as a schema (`x-event-payloads` names it per type); every message event carries the whole message.",
      'A stream started without Last-Event-ID first sends `id: <the newest event the caller may see>` alone on its frame, so a client that has seen no event yet can still resume from there.',
      "Beside the events, `event: counts` frames carry the caller's tab counts (as `GET /api/v1/conversations/counts` answers them): one when the stream starts, and another whenever an event, or the caller reading a conversation (which records no event), has changed them.",
      'A comment line (`: keep-alive`) every 15 s keeps proxies from closing an idle stream.',
      '',
      'Reconnecting with `Last-Event-ID` (sent by browsers\' `EventSource` on its own) or `last_event_id` first sends the events recorded after that one, oldest first, then the live ones, without gap or repetition. Events are kept at least an hour; for an unknown or expired id the stream sends `id: <the newest event the caller may see>`, then an `event: resync` frame (`data`: `{"reason"}`) telling the client to read again what it shows (it cannot be given what it missed), then the live events.',
      '',
      'Authentication: the bearer header, or a one-time `ticket` from `POST /api/v1/events/stream-tickets` (`EventSource` cannot send headers; an access token is never taken in the URL, where proxies log it). The connection counts as one request of its user for the rate limit. A user has at most STREAM_MAX_PER_USER streams open across every instance (one more is `429`).',
      'The stream ends when the server shuts down, and within seconds of its access ending: the token expires, or is revoked (logout, password change or reset), or the user is removed or their role or inboxes change. Reconnect with `Last-Event-ID`.',
    ].join('\n'),
  })
  @ApiErrors(400, 404)
  @ApiProduces('text/event-stream')
  @ApiQuery({
    name: 'ticket',
    required: false,
    type: String,
    description:
      'A stream ticket (POST /api/v1/events/stream-tickets), for clients that cannot send the Authorization header; used once, never logged',
  })
  @ApiQuery({ name: 'last_event_id', required: false, type: String, description: 'Like the Last-Event-ID header, which takes precedence' })
  @ApiQuery({
    name: 'inbox_id',
    required: false,
    type: String,
    description:
      "Only the events of this inbox's conversations (and those about no conversation, and the caller's own); 404 for an inbox the caller does not see",
  })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'The id (`evt_…`) of the last event the client received: the events after it are sent first',
  })
  @ApiOkResponse({
    description:
      'An endless `text/event-stream`: per event `id: <evt id>`, `event: <type>`, `data: <envelope JSON>` and a blank line; `: <comment>` lines in between.',
    content: { 'text/event-stream': { schema: { type: 'string', example: FRAME_EXAMPLE } } },
  })
  stream(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentUser() user: UserRow,
    @CurrentAccess() access: Access,
    @Headers('last-event-id') header: string | undefined,
    @Query('last_event_id') query: string | undefined,
    @Query('inbox_id') inboxPublicId: string | undefined,
  ): Promise<void> {
    return this.clients.serve(
      request,
      reply,
      { user, access, inboxId: requestedInboxOf(inboxPublicId, user) ?? null },
      lastEventIdOf(header, query),
    );
  }
}
