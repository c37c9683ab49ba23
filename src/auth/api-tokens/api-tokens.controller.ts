import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../users/current-user.decorator';
import { SessionOnly } from '../../users/roles.decorator';
import { ApiErrors } from '../../common/api-errors';
import { type Page, PageOf, PageQuery } from '../../common/pagination';
import { PublicIdPipe } from '../../common/public-id.pipe';
import type { UserRow } from '../../users/user.entity';
import { ApiTokenResponse, CreateApiTokenDto, CreatedApiTokenResponse } from './api-token.dto';
import { ApiTokensService } from './api-tokens.service';

@ApiTags('API tokens')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/api-tokens')
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @Get()
  @ApiOperation({ summary: "List one's API tokens, oldest first (an admin lists everyone's); never their secrets" })
  @ApiOkResponse({ type: PageOf(ApiTokenResponse, 'ApiTokenPage') })
  @ApiErrors(400)
  list(@CurrentUser() user: UserRow, @Query() query: PageQuery): Promise<Page<ApiTokenResponse>> {
    return this.tokens.list(user, query);
  }

  @Post()
  @SessionOnly()
  @ApiOperation({
    summary: 'Create an API token for an integration: its secret is answered this once',
    description:
      "The token works as `Authorization: Bearer <token>` with its owner's role and rate limit, until it expires or is revoked; a use from a new address is in the audit log. Made with a login session only (403 with an API token).",
  })
  @ApiCreatedResponse({ type: CreatedApiTokenResponse })
  @ApiErrors(400)
  create(@CurrentUser() user: UserRow, @Body() dto: CreateApiTokenDto): Promise<CreatedApiTokenResponse> {
    return this.tokens.create(user, dto);
  }

  @Delete(':id')
  @SessionOnly()
  @HttpCode(204)
  @ApiOperation({ summary: "Revoke an API token: one's own, or anyone's for an admin; it stops working at once" })
  @ApiNoContentResponse()
  @ApiErrors(404)
  revoke(@CurrentUser() user: UserRow, @Param('id', new PublicIdPipe('tok', 'API token')) id: string): Promise<void> {
    return this.tokens.revoke(user, id);
  }
}
