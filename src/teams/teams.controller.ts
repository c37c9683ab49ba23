import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { Roles } from '../users/roles.decorator';
import { CreateTeamDto, TeamResponse, UpdateTeamDto } from './team.dto';
import { TeamsService } from './teams.service';

const TeamId = new PublicIdPipe('team', 'Team');

@ApiTags('Teams')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Get()
  @ApiOperation({ summary: 'List the teams, oldest first', description: 'Every user may read them; admins manage them.' })
  @ApiOkResponse({ type: PageOf(TeamResponse, 'TeamPage') })
  @ApiErrors(400)
  list(@Query() query: PageQuery): Promise<Page<TeamResponse>> {
    return this.teams.list(query);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({
    summary: 'Create a team (admin)',
    description: 'The name is unique case-insensitively (409 otherwise); a member or inbox id that names nothing is a 422.',
  })
  @ApiCreatedResponse({ type: TeamResponse })
  @ApiErrors(400, 409, 422)
  create(@Body() dto: CreateTeamDto): Promise<TeamResponse> {
    return this.teams.create(dto);
  }

  @Patch(':id')
  @Roles('admin')
  @ApiOperation({ summary: 'Rename a team or replace its members or inboxes (admin)' })
  @ApiOkResponse({ type: TeamResponse })
  @ApiErrors(400, 404, 409, 422)
  update(@Param('id', TeamId) id: string, @Body() dto: UpdateTeamDto): Promise<TeamResponse> {
    return this.teams.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a team (admin)',
    description: 'Its conversations keep their agents and lose the team; an inbox that assigned through it assigns among all its members.',
  })
  @ApiNoContentResponse()
  @ApiErrors(404)
  remove(@Param('id', TeamId) id: string): Promise<void> {
    return this.teams.remove(id);
  }
}
