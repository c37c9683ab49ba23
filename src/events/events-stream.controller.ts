import { Controller, Get, Headers, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AllowTokenInQuery, CurrentUser } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors';
import type { UserRow } from '../users/user.entity';
import { EventStreamClients } from './event-stream-clients.service';

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
  constructor(private readonly clients: EventStreamClients) {}

  @Get('stream')
  @AllowTokenInQuery()
  @ApiOperation({
    summary: 'The live event stream (Server-Sent Events), for any logged-in user',
    description: [
      'Every event the service records, as it happens, one frame each: `id:` the event id, `event:` its type, `data:` the event envelope (`{"id", "type", "created_at", "data"}`) as JSON on one line.',
      "Also the caller's own `notification.created` events (`data`: `{\"notification\": {…}}`), and never another user's. Each type's `data` is documented as a schema (`x-event-payloads` names it per type); every message event carries the whole message.",
      'A stream started without Last-Event-ID first sends `id: <the newest event the caller may see>` alone on its frame, so a client that has seen no event yet can still resume from there.',
      "Beside the events, `event: counts` frames carry the caller's tab counts (as `GET /api/v1/conversations/counts` answers them): one when the stream starts, and another whenever an event has changed them.",
      'A comment line (`: keep-alive`) every 15 s keeps proxies from closing an idle stream.',
      '',
      "Reconnecting with `Last-Event-ID` (sent by browsers' `EventSource` on its own) or `last_event_id` first sends the events recorded after that one, oldest first, then the live ones, without gap or repetition. Events are kept at least an hour; for an unknown or expired id the stream starts with a comment saying so, then the live events.",
      '',
      'Authentication: the bearer header, or the `access_token` query parameter (on this endpoint only: `EventSource` cannot send headers). The connection counts as one request for the rate limit. The stream ends when the server shuts down; reconnect with `Last-Event-ID`.',
    ].join('\n'),
  })
  @ApiProduces('text/event-stream')
  @ApiQuery({
    name: 'access_token',
    required: false,
    type: String,
    description: 'The access token, for clients that cannot send the Authorization header (EventSource); never logged',
  })
  @ApiQuery({ name: 'last_event_id', required: false, type: String, description: 'Like the Last-Event-ID header, which takes precedence' })
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
    @Headers('last-event-id') header: string | undefined,
    @Query('last_event_id') query: string | undefined,
  ): void {
    this.clients.serve(request, reply, user.id, lastEventIdOf(header, query));
  }
}
