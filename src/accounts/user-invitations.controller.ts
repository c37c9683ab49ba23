import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../users/current-user.decorator';
import { ApiErrors } from '../common/api-errors';
import { PublicIdPipe } from '../common/public-id.pipe';
import { Roles, SessionOnly } from '../users/roles.decorator';
import { CreateUserDto } from '../users/user.dto';
import type { UserRow } from '../users/user.entity';
import { InvitedUserResponse } from './account.dto';
import { AccountsService } from './accounts.service';

const UserId = new PublicIdPipe('user', 'User');

/** Adding to the team: a user created with a password, or invited by e-mail. */
@ApiTags('Users')
@Controller('v1/users')
export class UserInvitationsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @Roles('admin')
  @SessionOnly()
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Create a user (admin), with a password or by invitation',
    description: [
      'With `password` the user is `active` and can log in at once.',
      'Without it the user is `invited`: they are e-mailed a link to `<APP_URL>/accept-invite?token=…`, valid 72 hours and once, where they choose their password (POST /api/v1/auth/accept-invite); until then they cannot log in.',
      'When no EMAIL_PROVIDER is set nothing is e-mailed and the answer carries `invite_url` for the admin to pass on.',
    ].join('\n\n'),
  })
  @ApiCreatedResponse({ type: InvitedUserResponse })
  @ApiErrors(400, 401, 403, 409, 429)
  create(@CurrentUser() admin: UserRow, @Body() dto: CreateUserDto): Promise<InvitedUserResponse> {
    return this.accounts.createUser(admin, dto);
  }

  @Post(':id/invite')
  @Roles('admin')
  @SessionOnly()
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Send an invited user a fresh invitation (admin)',
    description:
      'A new link, valid 72 hours; the earlier one stops working. `invite_url` as for creation when no EMAIL_PROVIDER is set. A user who has accepted already is a 422.',
  })
  @ApiOkResponse({ type: InvitedUserResponse })
  @ApiErrors(401, 403, 404, 422, 429)
  invite(@CurrentUser() admin: UserRow, @Param('id', UserId) id: string): Promise<InvitedUserResponse> {
    return this.accounts.reinvite(admin, id);
  }
}
