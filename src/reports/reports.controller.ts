import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { CurrentUser } from '../users/current-user.decorator';
import type { UserRow } from '../users/user.entity';
import {
  ConversationReportQuery,
  PricingReportQuery,
  PricingReportResponse,
  ReportSummaryQuery,
  ReportSummaryResponse,
} from './report.dto';
import { ReportsService } from './reports.service';

@ApiTags('Reports')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('summary')
  @ApiOperation({
    summary: 'How the team is doing: conversations, messages, first response and resolution times, ratings',
    description:
      'Figures of the period [from, to), one row per group, read from facts recorded as each conversation changed: first responses ' +
      "(the first agent's answer after the customer's first message of an episode; automatic, campaign messages and notes are not " +
      'answers), resolutions (each close; a reopened conversation has one episode per opening), who held each conversation when, its ' +
      "time in the queue. Medians and 90th percentiles in seconds, of the calendar or (`business_hours=true`) of each inbox's business " +
      'hours. An admin sees every inbox; an agent their inboxes, by agent only themselves and by team their teams (another agent or ' +
      'team is a 403). A period of any length; one that ends before it starts is a 400, and so is grouping more than 3,660 days or ' +
      'weeks.',
  })
  @ApiOkResponse({ type: ReportSummaryResponse })
  @ApiErrors(400, 404)
  summary(@Query() query: ReportSummaryQuery, @CurrentUser() reader: UserRow): Promise<ReportSummaryResponse> {
    return this.reports.summary(query, reader);
  }

  @Get('conversations.csv')
  @ApiOperation({
    summary: 'One row per conversation opened in the period, as CSV, streamed',
    description:
      'A row for each conversation with an episode (an opening) in the period, over those episodes, oldest first. Columns: ' +
      'conversation_id, inbox_id, contact_id, assigned_to and team_id (who held it last), opened_at (its first opening in the ' +
      'period), first_response_at and first_response_seconds (its first response), resolved_at (the last close; empty while it is ' +
      'open), resolution_seconds (the times it was open until each close, summed; calendar or, with `business_hours=true`, ' +
      'business-hours seconds), csat_rating (the latest), first_response_by, waiting_seconds (in the queue, summed), openings (its ' +
      'episodes counted). The filters of the summary apply to the episodes (`user_id`: those they held last); an agent gets the ' +
      'episodes they held last.',
  })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiErrors(400, 404)
  async conversationsCsv(@Query() query: ConversationReportQuery, @CurrentUser() reader: UserRow): Promise<StreamableFile> {
    return new StreamableFile(await this.reports.conversationsCsv(query, reader), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="conversations.csv"',
    });
  }

  @Get('pricing')
  @ApiOperation({
    summary: 'What outbound messages cost, as the channel priced them',
    description:
      'Outbound messages created in [from, to) counted per inbox, pricing category, type and model, as the channel reported them on their ' +
      'statuses (messages it never priced are not counted). An admin sees every inbox, an agent their own. A period that ends before ' +
      'it starts is a 400.',
  })
  @ApiOkResponse({ type: PricingReportResponse })
  @ApiErrors(400, 404)
  pricing(@Query() query: PricingReportQuery, @CurrentUser() reader: UserRow): Promise<PricingReportResponse> {
    return this.reports.pricing(query, reader);
  }
}
