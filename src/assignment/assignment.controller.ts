import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { AgentLoadsResponse } from './assignment.dto';
import { AssignmentService } from './assignment.service';

@ApiTags('Assignment')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/assignment')
export class AssignmentController {
  constructor(private readonly assignment: AssignmentService) {}

  @Get('agents')
  @ApiOperation({
    summary: "Every active user's availability and load",
    description:
      'What the team lead watches and the console shows beside each agent: availability, open conversations in every inbox, ' +
      'and the capacity the router keeps them under. Every user may read it (the team sees who is there).',
  })
  @ApiOkResponse({ type: AgentLoadsResponse })
  async agents(): Promise<AgentLoadsResponse> {
    return { data: await this.assignment.loads() };
  }
}
