import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { CurrentUser } from './current-user.decorator';
import { Roles, SessionOnly } from './roles.decorator';
import type { UserRow } from './user.entity';
import { UpdateUserDto, UserResponse } from './user.dto';
import { UsersService } from './users.service';

const UserId = new PublicIdPipe('user', 'User');

/** The team. Creating a user, with a password or by invitation, is the accounts module's (POST /api/v1/users). */
@ApiTags('Users')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: 'List the team, oldest first (any user: agents need it to assign conversations)' })
  @ApiOkResponse({ type: PageOf(UserResponse, 'UserPage') })
  @ApiErrors(400)
  list(@CurrentUser() caller: UserRow, @Query() query: PageQuery): Promise<Page<UserResponse>> {
    return this.users.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one user' })
  @ApiOkResponse({ type: UserResponse })
  @ApiErrors(404)
  get(@CurrentUser() caller: UserRow, @Param('id', UserId) id: string): Promise<UserResponse> {
    return this.users.get(caller, id);
  }

  @Patch(':id')
  @Roles('admin')
  @SessionOnly()
  @ApiOperation({ summary: 'Change a user (admin); a new password revokes their tokens' })
  @ApiOkResponse({ type: UserResponse })
  @ApiErrors(400, 404, 409, 422)
  update(@Param('id', UserId) id: string, @Body() dto: UpdateUserDto): Promise<UserResponse> {
    return this.users.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user (admin); their tokens stop working at once' })
  @ApiNoContentResponse()
  @ApiErrors(404, 422)
  remove(@Param('id', UserId) id: string): Promise<void> {
    return this.users.remove(id);
  }
}
