import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, type Page } from '../common/pagination';
import { CurrentUser } from '../users/current-user.decorator';
import type { UserRow } from '../users/user.entity';
import { MessageResponse, SearchMessagesQuery } from './message.dto';
import { MessagesService } from './messages.service';

@ApiTags('Conversations')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/messages')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Get('search')
  @ApiOperation({
    summary: 'Search the messages of every thread, newest first',
    description:
      'Messages whose text contains every word of q, in any order, case- and accent-insensitively ("cafe" finds "Café"); ' +
      'each carries its conversation_id. Words match inside words ("refund" finds "refunded").',
  })
  @ApiOkResponse({ type: PageOf(MessageResponse, 'MessageSearchPage') })
  @ApiErrors(400, 404)
  search(@Query() query: SearchMessagesQuery, @CurrentUser() reader: UserRow): Promise<Page<MessageResponse>> {
    return this.messages.search(query, reader);
  }
}
