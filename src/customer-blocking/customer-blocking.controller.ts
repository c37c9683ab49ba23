import { CurrentUser } from '../users/current-user.decorator';
import type { UserRow } from '../users/user.entity';
import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PublicIdPipe } from '../common/public-id.pipe';
import { ContactResponse } from '../contacts/contact.dto';
import { CustomerBlockingService } from './customer-blocking.service';

const ContactId = new PublicIdPipe('ct', 'Contact');

@ApiTags('Contacts')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/contacts')
export class CustomerBlockingController {
  constructor(private readonly blocking: CustomerBlockingService) {}

  @Post(':id/block')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Block the customer on the channel: they can no longer write in, nor the inbox to them (any user)',
    description:
      "Uses the channel's block list. Only a customer who wrote in the last 24 hours can be blocked (422 otherwise, or with the channel's reason " +
      'when it refuses); 503 when the channel cannot be reached. Sending to a blocked customer is refused with 422. Blocking a blocked customer ' +
      'changes nothing. Event contact.updated with `blocked: true`.',
  })
  @ApiOkResponse({ type: ContactResponse })
  @ApiErrors(404, 422, 503)
  block(@Param('id', ContactId) id: string, @CurrentUser() actor: UserRow): Promise<ContactResponse> {
    return this.blocking.block(id, actor);
  }

  @Post(':id/unblock')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Lift the block of the customer on the channel (any user)',
    description:
      'Asks the number the customer was blocked on (its block list holds them), even if they wrote to another since. ' +
      "422 with the channel's reason when it refuses, 503 when it cannot be reached; unblocking a customer who is not blocked changes nothing. " +
      'Event contact.updated with `blocked: false`.',
  })
  @ApiOkResponse({ type: ContactResponse })
  @ApiErrors(404, 422, 503)
  unblock(@Param('id', ContactId) id: string, @CurrentUser() actor: UserRow): Promise<ContactResponse> {
    return this.blocking.unblock(id, actor);
  }
}
