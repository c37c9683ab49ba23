import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../users/current-user.decorator';
import { ApiErrors } from '../common/api-errors';
import { PageOf, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import type { UserRow } from '../users/user.entity';
import { CannedResponseResponse, CreateCannedResponseDto, ListCannedResponsesQuery, UpdateCannedResponseDto } from './canned-response.dto';
import { CannedResponsesService } from './canned-responses.service';

const CannedResponseId = new PublicIdPipe('cr', 'Canned response');

@ApiTags('Canned responses')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/canned-responses')
export class CannedResponsesController {
  constructor(private readonly cannedResponses: CannedResponsesService) {}

  @Get()
  @ApiOperation({
    summary: 'List canned responses, newest first; q finds a shortcut by its start or a text by its words',
    description:
      'q is case- and accent-insensitive: `/gra` finds the shortcut gracias, `envio dias` a text saying "El envío tarda 3 días".',
  })
  @ApiOkResponse({ type: PageOf(CannedResponseResponse, 'CannedResponsePage') })
  @ApiErrors(400)
  list(@Query() query: ListCannedResponsesQuery): Promise<Page<CannedResponseResponse>> {
    return this.cannedResponses.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one canned response' })
  @ApiOkResponse({ type: CannedResponseResponse })
  @ApiErrors(404)
  get(@Param('id', CannedResponseId) id: string): Promise<CannedResponseResponse> {
    return this.cannedResponses.get(id);
  }

  @Post()
  @ApiOperation({ summary: 'Write a canned response (any user); its shortcut must be unique' })
  @ApiCreatedResponse({ type: CannedResponseResponse })
  @ApiErrors(400, 409)
  create(@Body() dto: CreateCannedResponseDto, @CurrentUser() author: UserRow): Promise<CannedResponseResponse> {
    return this.cannedResponses.create(dto, author);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the shortcut, the text or both (its author or an admin; others 403)' })
  @ApiOkResponse({ type: CannedResponseResponse })
  @ApiErrors(400, 404, 409)
  update(
    @Param('id', CannedResponseId) id: string,
    @Body() dto: UpdateCannedResponseDto,
    @CurrentUser() actor: UserRow,
  ): Promise<CannedResponseResponse> {
    return this.cannedResponses.update(id, dto, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a canned response (its author or an admin; others 403)' })
  @ApiNoContentResponse()
  @ApiErrors(404)
  remove(@Param('id', CannedResponseId) id: string, @CurrentUser() actor: UserRow): Promise<void> {
    return this.cannedResponses.remove(id, actor);
  }
}
