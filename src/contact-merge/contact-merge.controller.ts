import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../users/current-user.decorator';
import { ApiErrors } from '../common/api-errors';
import { PublicIdPipe } from '../common/public-id.pipe';
import { ContactResponse } from '../contacts/contact.dto';
import type { UserRow } from '../users/user.entity';
import { MergeContactDto } from './contact-merge.dto';
import { ContactMergeService } from './contact-merge.service';

const ContactId = new PublicIdPipe('ct', 'Contact');

@ApiTags('Contacts')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/contacts')
export class ContactMergeController {
  constructor(private readonly merges: ContactMergeService) {}

  @Post(':id/merge')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Merge another contact into this one: its conversation and messages move here, then it is deleted',
    description:
      'This contact keeps its phone (replies go to it), name and e-mail, filled from the other where it has none; tags are the union, ' +
      "attributes the union with this contact's values winning. If both have a conversation, the other's messages (and notifications) move into this one's, " +
      "which takes the later last_message_at, is open if either was, keeps its assignee (or takes the other's) and its own 24-hour window; " +
      "if only the other has one, it becomes this contact's, its window closed until this phone writes. One transaction; event contact.merged {contact, merged_id}. " +
      'A later message from the other phone starts a new contact.',
  })
  @ApiOkResponse({ type: ContactResponse })
  @ApiErrors(400, 404, 422)
  merge(@Param('id', ContactId) id: string, @Body() dto: MergeContactDto, @CurrentUser() actor: UserRow): Promise<ContactResponse> {
    return this.merges.merge(id, dto.from, actor);
  }
}
