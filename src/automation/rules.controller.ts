import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { Roles } from '../users/roles.decorator';
import { CreateRuleDto, RuleResponse, RuleRunResponse, UpdateRuleDto } from './rule.dto';
import { RulesService } from './rules.service';

const RuleId = new PublicIdPipe('rule', 'Rule');

@ApiTags('Automation')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Roles('admin')
@Controller('v1/automation-rules')
export class RulesController {
  constructor(private readonly rules: RulesService) {}

  @Get()
  @ApiOperation({ summary: 'List the automation rules in the order they run (admin)', description: 'All of them on one page.' })
  @ApiOkResponse({ type: PageOf(RuleResponse, 'RulePage') })
  list(): Promise<Page<RuleResponse>> {
    return this.rules.list();
  }

  @Post()
  @ApiOperation({
    summary: 'Create an automation rule (admin)',
    description:
      'On its event (`conversation.created`, `message.received` from a customer, `conversation.closed`), after that change commits, ' +
      'when all its conditions hold, its actions are done in order, once per event (crash-safe). A change its actions make sets off ' +
      'no rule. A team, user or label an action names must exist (422); one deleted later turns the rule off with a `disabled_reason`. ' +
      'At most 200 rules.',
  })
  @ApiCreatedResponse({ type: RuleResponse })
  @ApiErrors(400, 422)
  create(@Body() dto: CreateRuleDto): Promise<RuleResponse> {
    return this.rules.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an automation rule (admin)' })
  @ApiOkResponse({ type: RuleResponse })
  @ApiErrors(404)
  get(@Param('id', RuleId) id: string): Promise<RuleResponse> {
    return this.rules.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change an automation rule (admin)', description: 'Setting `enabled` clears the `disabled_reason`.' })
  @ApiOkResponse({ type: RuleResponse })
  @ApiErrors(400, 404, 422)
  update(@Param('id', RuleId) id: string, @Body() dto: UpdateRuleDto): Promise<RuleResponse> {
    return this.rules.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an automation rule and its run log (admin)' })
  @ApiNoContentResponse()
  @ApiErrors(404)
  remove(@Param('id', RuleId) id: string): Promise<void> {
    return this.rules.remove(id);
  }

  @Get(':id/runs')
  @ApiOperation({
    summary: "A rule's runs, newest first (admin)",
    description: 'One per event on which its conditions held: what each action did, or that it was turned off instead.',
  })
  @ApiOkResponse({ type: PageOf(RuleRunResponse, 'RuleRunPage') })
  @ApiErrors(400, 404)
  runs(@Param('id', RuleId) id: string, @Query() query: PageQuery): Promise<Page<RuleRunResponse>> {
    return this.rules.runs(id, query);
  }
}
