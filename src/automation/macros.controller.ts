import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { ConversationAccessGuard } from '../conversations/conversation-access.guard';
import { CurrentUser } from '../users/current-user.decorator';
import type { UserRow } from '../users/user.entity';
import { CreateMacroDto, MacroResponse, MacroRunResponse, UpdateMacroDto } from './macro.dto';
import { MacrosService } from './macros.service';

const MacroId = new PublicIdPipe('mac', 'Macro');
const ConversationId = new PublicIdPipe('conv', 'Conversation');

@ApiTags('Automation')
@ApiBearerAuth()
@ApiErrors(401, 429)
@UseGuards(ConversationAccessGuard)
@Controller('v1')
export class MacrosController {
  constructor(private readonly macros: MacrosService) {}

  @Get('macros')
  @ApiOperation({ summary: "List the team's macros and the caller's own, by name", description: 'All of them on one page.' })
  @ApiOkResponse({ type: PageOf(MacroResponse, 'MacroPage') })
  list(@CurrentUser() caller: UserRow): Promise<Page<MacroResponse>> {
    return this.macros.list(caller);
  }

  @Post('macros')
  @ApiOperation({
    summary: 'Save a macro',
    description:
      'Any user saves `personal` macros (100 each); admins save `team` ones (200), a 403 for an agent. A team, user or label an action names must exist (422).',
  })
  @ApiCreatedResponse({ type: MacroResponse })
  @ApiErrors(400, 403, 422)
  create(@Body() dto: CreateMacroDto, @CurrentUser() caller: UserRow): Promise<MacroResponse> {
    return this.macros.create(dto, caller);
  }

  @Patch('macros/:id')
  @ApiOperation({ summary: 'Change a macro', description: "One's own; a team macro, or its visibility, by admins only (403)." })
  @ApiOkResponse({ type: MacroResponse })
  @ApiErrors(400, 403, 404, 422)
  update(@Param('id', MacroId) id: string, @Body() dto: UpdateMacroDto, @CurrentUser() caller: UserRow): Promise<MacroResponse> {
    return this.macros.update(id, dto, caller);
  }

  @Delete('macros/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a macro', description: "One's own; a team macro by admins only (403)." })
  @ApiNoContentResponse()
  @ApiErrors(403, 404)
  remove(@Param('id', MacroId) id: string, @CurrentUser() caller: UserRow): Promise<void> {
    return this.macros.remove(id, caller);
  }

  @Post('conversations/:id/macros/:macro_id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run a macro on a conversation',
    description:
      'Its actions in order, as the caller, in one transaction: each is recorded as the same change made by hand. An action the service ' +
      'refuses (a send outside the 24 hours, an agent who is not a member) is skipped with its reason; the rest go on. 422 when a team, ' +
      'user, label or template it names is gone.',
  })
  @ApiOkResponse({ type: MacroRunResponse })
  @ApiErrors(404, 422)
  run(
    @Param('id', ConversationId) conversationId: string,
    @Param('macro_id', MacroId) macroId: string,
    @CurrentUser() caller: UserRow,
  ): Promise<MacroRunResponse> {
    return this.macros.run(conversationId, macroId, caller);
  }
}
